package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// outputFile is a --valid-out or --invalid-out file, compressed when its
// name ends in .zst or .gz.
type outputFile struct {
	path string
	f    *os.File
	w    io.Writer
	c    io.Closer // the compressor, closed before the file
}

func createOutput(path string) (*outputFile, error) {
	// Write-only, unlike os.Create: opened read-write, a FIFO (or
	// /dev/stdout on a pipe) would have cardscan hold its read end itself,
	// so that a reader going away is never seen and writes block for ever.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	o := &outputFile{path: path, f: f, w: f}
	switch name := strings.ToLower(path); {
	case strings.HasSuffix(name, ".zst"):
		enc, err := zstd.NewWriter(f, zstd.WithEncoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, err
		}
		o.w, o.c = enc, enc
	case strings.HasSuffix(name, ".gz"):
		gz := gzip.NewWriter(f)
		o.w, o.c = gz, gz
	}
	return o, nil
}

func (o *outputFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// Close flushes the compressor and closes the file, reporting the first
// failure.
func (o *outputFile) Close() error {
	var err error
	if o.c != nil {
		err = o.c.Close()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (o *outputFile) flagName(opts *options) string {
	if o.path == opts.validOut {
		return "--valid-out"
	}
	return "--invalid-out"
}

func closeOutputs(outs []*outputFile) {
	for _, o := range outs {
		o.Close()
	}
}

// outputSpec is a file the run writes: --valid-out, --invalid-out or
// --summary.
type outputSpec struct {
	flag, path string
}

func (o *options) outputSpecs() []outputSpec {
	var specs []outputSpec
	for _, s := range []outputSpec{{"--valid-out", o.validOut}, {"--invalid-out", o.invalidOut}, {"--summary", o.summary}} {
		if s.path != "" && s.path != "-" {
			specs = append(specs, s)
		}
	}
	return specs
}

// checkOutputs refuses outputs that would destroy what the run reads or
// writes: an output that is an input named on the command line (or
// standard input), or two outputs that are one file. Creating an output
// truncates it, so both would lose records. A file that a directory walk
// found and that is an output (left there by an earlier run) is not read:
// it is dropped from inputs with a note, since reading it while it grows
// would never end. Only regular files are compared: two outputs may well
// both be /dev/null or a terminal.
func checkOutputs(o *options, inputs []pipeline.Input, stdin io.Reader, con *console.Console) ([]pipeline.Input, error) {
	specs := o.outputSpecs()
	if len(specs) == 0 {
		return inputs, nil
	}
	infos := make([]os.FileInfo, len(specs))
	special := make([]bool, len(specs))
	for i, s := range specs {
		if st, err := os.Stat(s.path); err == nil {
			if st.Mode().IsRegular() {
				infos[i] = st
			} else {
				special[i] = true
			}
		}
		for j := range i {
			if special[i] || special[j] {
				continue
			}
			if samePath(s.path, specs[j].path) || infos[i] != nil && infos[j] != nil && os.SameFile(infos[i], infos[j]) {
				return nil, usagef("%s and %s name the same file %q", specs[j].flag, s.flag, s.path)
			}
		}
	}
	clash := func(st os.FileInfo) (outputSpec, bool) {
		for i, info := range infos {
			if info != nil && os.SameFile(info, st) {
				return specs[i], true
			}
		}
		return outputSpec{}, false
	}
	if f, ok := stdin.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if s, bad := clash(st); bad {
				return nil, usagef("%s %s is also the standard input; writing it would destroy it", s.flag, s.path)
			}
		}
	}
	named := map[string]bool{}
	for _, p := range o.paths {
		named[p] = true
	}
	kept := inputs[:0]
	for _, in := range inputs {
		st, err := os.Stat(in.Path)
		if in.Path == "" || err != nil || !st.Mode().IsRegular() {
			kept = append(kept, in)
			continue
		}
		s, bad := clash(st)
		switch {
		case !bad:
			kept = append(kept, in)
		case named[in.Path]:
			return nil, usagef("%s %s is also an input; writing it would destroy it", s.flag, s.path)
		default:
			con.Printf("note: not reading %s: it is the %s file", in.Name, s.flag)
		}
	}
	return kept, nil
}

// samePath reports whether two paths, which need not exist, name the same
// directory entry: the same name in the same directory once links in the
// directory's path are resolved.
func samePath(a, b string) bool {
	return canonical(a) == canonical(b)
}

func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, base)
}
