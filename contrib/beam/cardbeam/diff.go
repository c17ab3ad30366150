package cardbeam

import (
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/cardscan/cardscan/fastvalidate"
)

// DiffOptions are what a diff pipeline reads and writes: the digest files
// of two crawls, which cardscan merge compares as cardscan diff OLD NEW
// compares the dumps.
type DiffOptions struct {
	// Old and New are globs of the two dumps' files; each is read as
	// cardscan diff reads a directory holding the files it matches.
	Old, New string
	// Profile is the fastvalidate profile, "auto" as cardscan's default,
	// and Key diff's --key, "auto" when empty.
	Profile, Key string
	// Digest, DigestParts, DigestShards and Memory are as DigestSpec's
	// Path, Parts, Shards and Memory; Digest is required.
	Digest       string
	DigestParts  int
	DigestShards int
	Memory       int64
}

// BuildDiff adds the diff pipeline to s.
func BuildDiff(s beam.Scope, o DiffOptions) error {
	if o.Profile == "" {
		o.Profile = "auto"
	}
	if o.Key == "" {
		o.Key = "auto"
	}
	if o.Old == "" || o.New == "" || o.Digest == "" {
		return fmt.Errorf("a diff pipeline wants the old and the new dump's globs and a digest path")
	}
	if _, err := fastvalidate.New(o.Profile); err != nil {
		return fmt.Errorf("profile %q: %w", o.Profile, err)
	}
	for _, path := range []string{o.Old, o.New, o.Digest} {
		if err := checkScheme(path); err != nil {
			return err
		}
	}
	for side, glob := range []string{o.Old, o.New} {
		d := DigestSpec{Path: o.Digest, Parts: o.DigestParts, Shards: o.DigestShards, Memory: o.Memory,
			Kind: DiffDigest, Key: o.Key, Side: side}
		if err := d.check(); err != nil {
			return err
		}
		for _, g := range []string{o.Old, o.New} {
			if err := d.checkOutside(g); err != nil {
				return err
			}
		}
		// The records themselves are not written: a diff is of the
		// digests alone, as cardscan diff --digest-out writes no more.
		_, _, sums := judgeFiles(s.Scope([...]string{"old", "new"}[side]), glob, judgeFileFn{Profile: o.Profile, Digests: d})
		beam.ParDo0(s, &checkReadFn{Glob: glob}, beam.Combine(s, &mergeSummaryFn{}, sums))
	}
	return nil
}
