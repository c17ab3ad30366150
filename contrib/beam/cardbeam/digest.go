package cardbeam

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/report"
)

// The kinds of digest file a pipeline writes: --cross-card's claims of
// validated dumps, or diff's digests of an old and a new dump.
const (
	ClaimsDigest = "claims"
	DiffDigest   = "diff"
)

// DefaultMemory bounds the records of one input's digest held in memory
// before they spill to sorted temporary files, as cardscan's --memory
// does for a run. A worker holds up to this much per file it reads at
// once, so it is a quarter of cardscan's default.
const DefaultMemory = 256 << 20

// MaxDigestParts is cardscan's bound on --digest-parts (internal/cli's
// maxDigestParts, unexported there).
const MaxDigestParts = 256

// digestFlush is how much of a file's digest records are gathered before
// they are handed to its store at once.
const digestFlush = 64 << 10

// DigestSpec says which digest files a pipeline writes: one per input
// (or per shard of inputs), the same format cardscan --digest-out
// writes, so that cardscan merge of them all gives what one cardscan run
// over every input would (the --cross-card findings, or the diff
// records).
type DigestSpec struct {
	// Path starts the files' names: an input's file is
	// Path-INDEX-of-COUNT, INDEX its place, from 0, among the COUNT
	// files matched, sorted (Path-old-... and Path-new-... for a diff's
	// two dumps). Named by input, a file written again (a retried
	// bundle, a pipeline run again) replaces the one before rather than
	// adding to it. Empty writes none.
	Path string
	// Parts splits each file by key hash as --digest-parts does:
	// Path-INDEX-of-COUNT.part-K-of-P, for P merges run apart. 0 is 1.
	Parts int
	// Memory is DefaultMemory when 0.
	Memory int64
	// Shards, when above 0, deals the inputs among that many shards,
	// input INDEX to shard INDEX mod Shards, each shard's files judged by
	// one worker in order and their digests written to one file,
	// Path-shard-K-of-Shards: a merge then reads Shards files rather than
	// one per input (cardscan merge reads at most 4096 at once), at the
	// price of Shards workers judging at most.
	Shards int
	// Kind is ClaimsDigest or DiffDigest; Key is diff's --key (auto,
	// source or id), and Side 0 for the old dump, 1 for the new.
	Kind string
	Key  string
	Side int
}

func (d DigestSpec) check() error {
	if d.Path == "" {
		if d.Parts > 1 || d.Shards > 0 {
			return fmt.Errorf("digest parts %d, shards %d: but no digest path to write them to", d.Parts, d.Shards)
		}
		return nil
	}
	if d.Shards < 0 || d.Shards > dump.MaxMergeFiles {
		return fmt.Errorf("digest shards %d: want 0 (a digest file per input) to %d", d.Shards, dump.MaxMergeFiles)
	}
	if d.Parts < 0 || d.Parts > MaxDigestParts {
		return fmt.Errorf("digest parts %d: want 1 to %d", d.Parts, MaxDigestParts)
	}
	if d.Memory < 0 || d.Memory > 0 && d.Memory < 1<<10 {
		return fmt.Errorf("memory %d: want at least 1KiB", d.Memory)
	}
	if strings.HasSuffix(d.Path, "/") {
		return fmt.Errorf("digest %q: want the start of a file name, not a directory", d.Path)
	}
	if d.Kind == DiffDigest {
		if _, ok := dump.ParseKeyMode(d.Key); !ok {
			return fmt.Errorf("key %q: want auto, source or id", d.Key)
		}
	}
	return nil
}

func (d DigestSpec) parts() int { return max(d.Parts, 1) }

// fileOf is the digest file of input index of count, or of shard index
// of Shards.
func (d DigestSpec) fileOf(index, count int, shard bool) string {
	side := ""
	if d.Kind == DiffDigest {
		side = [...]string{"old-", "new-"}[d.Side]
	}
	if shard {
		side += "shard-"
	}
	return fmt.Sprintf("%s-%s%05d-of-%05d", d.Path, side, index, count)
}

// digestSink gathers one input's digest records; with no DigestSpec.Path,
// it gathers none.
type digestSink struct {
	parts   int
	dest    string
	set     *dump.DigestSet
	extract func(dst []byte, vd report.Verdict, v *fastvalidate.Validator) []byte
	buf     []byte
	err     error
}

// open returns the sink of the inputs names, placed among inputs
// (sorted): of shard, or with shard -1, of the one input named.
func (d DigestSpec) open(names, inputs []string, shard int) (*digestSink, error) {
	if d.Path == "" {
		return &digestSink{}, nil
	}
	order := make(map[string]int, len(names))
	for _, name := range names {
		index, found := slices.BinarySearch(inputs, name)
		if !found {
			return nil, fmt.Errorf("%s: not among the %d inputs matched", name, len(inputs))
		}
		order[name] = index
	}
	dest := d.fileOf(shard, d.Shards, true)
	if shard < 0 {
		dest = d.fileOf(order[names[0]], len(inputs), false)
	}
	memory := d.Memory
	if memory == 0 {
		memory = DefaultMemory
	}
	var set *dump.DigestSet
	if d.Kind == DiffDigest {
		mode, _ := dump.ParseKeyMode(d.Key)
		set = dump.NewDiffDigests(memory, mode, order)
	} else {
		set = dump.NewClaimDigests(memory, order)
	}
	return &digestSink{parts: d.parts(), dest: dest, set: set,
		extract: set.Extract(byte(d.Side))()}, nil
}

func (k *digestSink) enabled() bool { return k.set != nil }

// add adds the digest records of the card vd judged, v the Validator
// that judged it.
func (k *digestSink) add(vd report.Verdict, v *fastvalidate.Validator) {
	if k.err != nil {
		return
	}
	k.buf = k.extract(k.buf, vd, v)
	if len(k.buf) >= digestFlush {
		k.flush()
	}
}

func (k *digestSink) flush() {
	if k.err == nil && len(k.buf) > 0 {
		k.err = k.set.Add(k.buf)
	}
	k.buf = k.buf[:0]
}

// write writes the input's digest files, each put in place whole.
func (k *digestSink) write(ctx context.Context) error {
	if !k.enabled() {
		return nil
	}
	k.flush()
	if k.err != nil {
		return k.err
	}
	if isLocal(k.dest) {
		// DigestSet.Write renames each file over its path when complete.
		return k.set.Write(k.dest, k.parts)
	}
	tmp, err := os.MkdirTemp("", "cardbeam-digest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	local := filepath.Join(tmp, "digest")
	if err := k.set.Write(local, k.parts); err != nil {
		return err
	}
	for p := range k.parts {
		// An object store shows an object only once its writer closes.
		if err := copyToFS(ctx, dump.PartName(local, p, k.parts), dump.PartName(k.dest, p, k.parts)); err != nil {
			return err
		}
	}
	return nil
}

// discard removes the input's digest files of an earlier run, for an input
// that could not be read whole now: a merge must not take them for its
// records.
func (k *digestSink) discard(ctx context.Context) error {
	if !k.enabled() {
		return nil
	}
	for p := range k.parts {
		if err := removeFromFS(ctx, dump.PartName(k.dest, p, k.parts)); err != nil {
			return err
		}
	}
	return nil
}

func (k *digestSink) close() {
	if k.set != nil {
		k.set.Close()
	}
}

// isLocal reports whether path is on the local filesystem: it names no
// scheme, as Beam's filesystem package tells them.
func isLocal(path string) bool { return strings.Index(path, "://") <= 0 }

func copyToFS(ctx context.Context, from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	fsys, err := filesystem.New(ctx, to)
	if err != nil {
		return fmt.Errorf("%s: %w", to, err)
	}
	defer fsys.Close()
	w, err := fsys.OpenWrite(ctx, to)
	if err != nil {
		return fmt.Errorf("%s: %w", to, err)
	}
	if _, err := io.Copy(w, src); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", to, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", to, err)
	}
	return nil
}

func removeFromFS(ctx context.Context, path string) error {
	if isLocal(path) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	fsys, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer fsys.Close()
	rm, ok := fsys.(filesystem.Remover)
	if !ok {
		return fmt.Errorf("%s: its filesystem cannot remove the digest file of an earlier run", path)
	}
	found, err := fsys.List(ctx, path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if slices.Contains(found, path) {
		if err := rm.Remove(ctx, path); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}
