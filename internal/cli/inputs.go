package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
)

const stdinName = "<stdin>"

// expandPaths turns the command line's paths into inputs, walking
// directories in lexical order. It returns the total stored size when
// every input's size is known (else 0), and the number of directory
// entries that could not be walked, each already diagnosed. filter, when
// not nil, is the policy file's include and exclude globs.
func expandPaths(paths []string, framing pipeline.Framing, stdin io.Reader, con *console.Console, filter *pathFilter) (inputs []pipeline.Input, total int64, walkErrors int) {
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	known := true
	for _, path := range paths {
		if path == "-" {
			inputs = append(inputs, pipeline.Input{Name: stdinName, Framing: framing})
			if size, ok := regularSize(stdin); ok {
				total += size
			} else {
				known = false
			}
			continue
		}
		st, err := os.Stat(path)
		if filter.excluded(path) {
			continue
		}
		if err != nil || !st.IsDir() {
			// A missing file is reported when the reader reaches it, in
			// order with the verdicts before it.
			inputs = append(inputs, pipeline.Input{Name: path, Path: path, Framing: framing})
			if err == nil {
				total += st.Size()
			}
			continue
		}
		err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				con.Errorf("%s: %s", p, describe(err))
				walkErrors++
				return nil
			}
			if d.IsDir() {
				if p != path && filter.excluded(p) {
					return fs.SkipDir
				}
				return nil
			}
			if !isCardFileName(p) || !filter.walked(p) {
				return nil
			}
			// Only regular files, or links to them: a FIFO or device that
			// happens to match the names would block the walk or never end.
			// A path named on the command line is read whatever it is.
			info, err := os.Stat(p)
			if err == nil && !info.Mode().IsRegular() {
				return nil
			}
			inputs = append(inputs, pipeline.Input{Name: p, Path: p, Framing: framing})
			if err == nil {
				total += info.Size()
			}
			return nil
		})
		if err != nil {
			con.Errorf("%s: %s", path, describe(err))
			walkErrors++
		}
	}
	if !known {
		total = 0
	}
	return inputs, total, walkErrors
}

// sameInputs fails, naming both, when two inputs are one regular file:
// the same path again, another path or a link to it, or standard input
// redirected from it. Each of its records would be handled twice (judged
// and counted, and --cross-card would take each for a duplicate of
// itself; migrated and written twice), as harm says.
func sameInputs(inputs []pipeline.Input, stdin io.Reader, harm string) error {
	names := make([]string, len(inputs))
	paths := make([]string, len(inputs))
	for i, in := range inputs {
		names[i], paths[i] = in.Name, in.Path
		if in.Path == "" {
			paths[i] = "-"
		}
	}
	return sameFilesNamed(paths, names, stdin, harm)
}

// sameFiles is sameInputs for a command's operands, "-" standard input:
// summaries whose counts would be added to themselves.
func sameFiles(paths []string, stdin io.Reader) error {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if p == "-" {
			names[i] = stdinName
		}
	}
	return sameFilesNamed(paths, names, stdin, "its counts are added to themselves")
}

// sameFilesNamed fails when two of paths ("-" standard input) are one
// regular file, or both standard input, naming them by names and saying
// what would go wrong.
func sameFilesNamed(paths, names []string, stdin io.Reader, harm string) error {
	seen := make(map[[2]uint64]string, len(paths))
	stdinSeen := false
	for i, path := range paths {
		var info os.FileInfo
		var err error
		if path == "-" {
			if stdinSeen {
				return usagef("standard input twice: it can be read once")
			}
			stdinSeen = true
			f, ok := stdin.(*os.File)
			if !ok {
				continue
			}
			info, err = f.Stat()
		} else {
			info, err = os.Stat(path)
		}
		if err != nil || !info.Mode().IsRegular() {
			continue // a missing file is reported when it is read
		}
		id, ok := fileID(info)
		if !ok {
			continue
		}
		if first, dup := seen[id]; dup {
			return usagef("%s and %s are the same file; name it once, or %s",
				report.TextSafe(first), report.TextSafe(names[i]), harm)
		}
		seen[id] = names[i]
	}
	return nil
}

func regularSize(r io.Reader) (int64, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	return st.Size(), true
}

// baseName strips a compression suffix, which names the wrapping, not the
// content.
func baseName(path string) string {
	name := strings.ToLower(filepath.Base(path))
	for _, suffix := range []string{".gz", ".zst"} {
		if strings.HasSuffix(name, suffix) {
			return strings.TrimSuffix(name, suffix)
		}
	}
	return name
}

func isCardFileName(path string) bool {
	name := baseName(path)
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".ndjson") || strings.HasSuffix(name, ".jsonl")
}
