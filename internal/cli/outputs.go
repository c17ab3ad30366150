package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/dump"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/summary"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// outputFile is a --valid-out or --invalid-out file, compressed when its
// name ends in .zst or .gz.
type outputFile struct {
	path string
	// file is written beside path and renamed over it by Close
	// (createPending), so that a run that fails to write it leaves any
	// earlier file as it was; a FIFO or device is written in place.
	file *pendingFile
	w    io.Writer
	c    io.Closer // the compressor, closed before the file
}

// createOutput opens path as a --valid-out or --invalid-out file.
func createOutput(path string) (*outputFile, error) {
	p, err := createPending(path)
	if err != nil {
		return nil, err
	}
	o := &outputFile{path: path, file: p, w: p}
	switch name := strings.ToLower(path); {
	case strings.HasSuffix(name, ".zst"):
		enc, err := zstd.NewWriter(p, zstd.WithEncoderConcurrency(1))
		if err != nil {
			p.discard()
			return nil, err
		}
		o.w, o.c = enc, enc
	case strings.HasSuffix(name, ".gz"):
		gz := gzip.NewWriter(p)
		o.w, o.c = gz, gz
	}
	return o, nil
}

func (o *outputFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// Close flushes the compressor and puts the file in place, reporting the
// first failure; a file that failed is dropped.
func (o *outputFile) Close() error {
	if o.file == nil {
		return nil
	}
	var err error
	if o.c != nil {
		err = o.c.Close()
	}
	if err != nil {
		o.drop()
		return err
	}
	err = o.file.commit(nil)
	o.file = nil
	return err
}

// drop closes the file without putting it in place.
func (o *outputFile) drop() {
	if o.file != nil {
		o.file.discard()
		o.file = nil
	}
}

func (o *outputFile) flagName(opts *options) string {
	if o.path == opts.validOut {
		return "--valid-out"
	}
	return "--invalid-out"
}

// closeOutputs drops the outputs of a run that failed, leaving any
// earlier ones in place.
func closeOutputs(outs []*outputFile) {
	for _, o := range outs {
		o.drop()
	}
}

// outputFiles are the files the run writes: --valid-out, --invalid-out,
// --summary, each --format FORMAT=FILE, and standard output when findings
// or the summary go there.
func (o *options) outputFiles() []clobber.File {
	var files []clobber.File
	all := []clobber.File{{Role: "--valid-out", Path: o.validOut}, {Role: "--invalid-out", Path: o.invalidOut}, {Role: "--summary", Path: o.summary}}
	all = append(all, digestFiles(o.digestOut, o.digestParts)...)
	for _, ff := range o.formatFiles {
		all = append(all, clobber.File{Role: "--format " + ff.format + "=", Path: ff.path})
	}
	for _, f := range all {
		if f.Path != "" && f.Path != "-" {
			files = append(files, f)
		}
	}
	if !o.quiet || o.summary == "-" {
		files = append(files, clobber.File{Role: "standard output", Path: "-"})
	}
	return files
}

// checkOutputs refuses outputs that would destroy what the run reads or
// writes: an output that is an input named on the command line, standard
// input, a --keys or policy file, or another output. Creating an output
// truncates it, so both would lose records. A file that a directory walk
// found and that is an output (left there by an earlier run) is not read:
// it is dropped from inputs with a note, since reading it while it grows
// would never end.
func checkOutputs(o *options, inputs []pipeline.Input, stdin io.Reader, stdout io.Writer, con *console.Console) ([]pipeline.Input, error) {
	g, err := clobber.New(o.outputFiles(), stdin, stdout)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	read := []clobber.File{{Role: "the standard input", Path: "-"}}
	for _, k := range o.Keys {
		read = append(read, clobber.File{Role: "--keys", Path: k})
	}
	if o.TrustFile != "" {
		read = append(read, clobber.File{Role: "--trust", Path: o.TrustFile})
	}
	if o.policyFile != nil {
		read = append(read, clobber.File{Role: "the policy file", Path: o.policyFile.path})
	}
	for _, f := range read {
		if err := g.Input(f); err != nil {
			return nil, usageError{err.Error()}
		}
	}
	named := map[string]bool{}
	for _, p := range o.paths {
		named[p] = true
	}
	kept := inputs[:0]
	for _, in := range inputs {
		if in.Path == "" {
			kept = append(kept, in)
			continue
		}
		if named[in.Path] {
			if err := g.Input(clobber.File{Role: "an input", Path: in.Path}); err != nil {
				return nil, usageError{err.Error()}
			}
			kept = append(kept, in)
			continue
		}
		st, err := os.Stat(in.Path)
		if out, bad := g.Output(st); err == nil && bad {
			con.Printf("note: not reading %s: it is the %s file", in.Name, strings.TrimSuffix(out.Role, "="))
			continue
		}
		kept = append(kept, in)
	}
	return kept, nil
}

// guardFiles is clobber.Check as a usage error: the report, diff,
// summary merge and sign commands call it before they write anything.
func guardFiles(inputs, outputs []clobber.File, stdin io.Reader, stdout io.Writer) error {
	if err := clobber.Check(inputs, outputs, stdin, stdout); err != nil {
		return usageError{err.Error()}
	}
	return nil
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
	// mode is what the file gets: that of the file it replaces, so that
	// one kept private stays so, else 0644.
	mode os.FileMode
}

func createPending(path string) (*pendingFile, error) {
	// Through a link to the file it names, which is what writing the
	// path in place would change.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := os.FileMode(0o644)
	fi, err := os.Stat(path)
	if err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	if err == nil && !fi.Mode().IsRegular() {
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
	return &pendingFile{path: path, f: f, tmp: true, mode: mode}, nil
}

func (p *pendingFile) Write(b []byte) (int, error) { return p.f.Write(b) }

// commit writes b after what was written so far, and puts the file in
// place.
func (p *pendingFile) commit(b []byte) error {
	_, err := p.f.Write(b)
	if err == nil && p.tmp {
		err = p.f.Chmod(p.mode)
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

// checkDigestOut refuses --digest-out's files before the run reads a
// record, as every other output is refused (openOutputs), where they are
// written only at its end: a directory, or a directory that does not
// exist or cannot be written, found by making a temporary file where the
// digest's will go. A FIFO or device is left to the end.
func checkDigestOut(path string, parts int) error {
	for _, f := range digestFiles(path, parts) {
		fi, err := os.Stat(f.Path)
		if err == nil && fi.IsDir() {
			return cmderr.IOf("--digest-out %s: %s", f.Path, syscall.EISDIR)
		}
		if err == nil && !fi.Mode().IsRegular() {
			continue
		}
		probe, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".*")
		if err != nil {
			return cmderr.IOf("--digest-out %s: %s", f.Path, describe(err))
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// digestFiles are the files --digest-out writes.
func digestFiles(path string, parts int) []clobber.File {
	if path == "" {
		return nil
	}
	var files []clobber.File
	for k := range max(parts, 1) {
		files = append(files, clobber.File{Role: "--digest-out", Path: dump.PartName(path, k, parts)})
	}
	return files
}
