package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/summary"

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

// outputSpec is a file the run writes: --valid-out, --invalid-out,
// --summary or --format FORMAT=FILE.
type outputSpec struct {
	flag, path string
}

func (o *options) outputSpecs() []outputSpec {
	var specs []outputSpec
	all := []outputSpec{{"--valid-out", o.validOut}, {"--invalid-out", o.invalidOut}, {"--summary", o.summary}}
	for _, ff := range o.formatFiles {
		all = append(all, outputSpec{"--format " + ff.format, ff.path})
	}
	for _, s := range all {
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

// pendingFile is an output written whole or streamed during the run
// (--summary, a --format written to a file). It is created before the
// first record is read, so that a path that cannot be written is found at
// once rather than after the whole dump, and it is written to a temporary
// file beside its path, renamed over it by commit: an earlier file of the
// name stays whole until the new one is complete, and is left as it was by
// a run that never commits. A path that exists and is not a regular file
// (a FIFO, /dev/stdout) is written in place.
type pendingFile struct {
	path string
	f    *os.File
	tmp  bool // f is a temporary file, to be renamed over path
}

func createPending(path string) (*pendingFile, error) {
	// Through a link to the file it names, which is what writing the
	// path in place would change.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, &os.PathError{Op: "create", Path: path, Err: syscall.EISDIR}
		}
		// Write-only, as createOutput opens its files.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, err
		}
		return &pendingFile{path: path, f: f}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		// Name the path asked for, not the temporary one.
		var pe *os.PathError
		if errors.As(err, &pe) {
			pe.Path = path
		}
		return nil, err
	}
	return &pendingFile{path: path, f: f, tmp: true}, nil
}

func (p *pendingFile) Write(b []byte) (int, error) { return p.f.Write(b) }

// commit writes b after what was written so far, and puts the file in
// place.
func (p *pendingFile) commit(b []byte) error {
	_, err := p.f.Write(b)
	if err == nil && p.tmp {
		err = p.f.Chmod(0o644)
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil && p.tmp {
		err = os.Rename(p.f.Name(), p.path)
	}
	if err != nil && p.tmp {
		os.Remove(p.f.Name())
	}
	p.f = nil
	return err
}

// discard drops what was written, unless commit has run; an earlier file
// at the path is left as it was.
func (p *pendingFile) discard() {
	if p == nil || p.f == nil {
		return
	}
	p.f.Close()
	if p.tmp {
		os.Remove(p.f.Name())
	}
	p.f = nil
}

// writeSummary writes sum to its prepared file, or to stdout when there is
// none ('-').
func writeSummary(sum *summary.Summary, f *pendingFile, stdout io.Writer) error {
	if f == nil {
		return sum.WriteFile("-", stdout)
	}
	b, err := sum.Marshal()
	if err != nil {
		f.discard()
		return err
	}
	return f.commit(b)
}
