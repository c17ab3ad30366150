package cli

import (
	"io"
	"os"
	"strings"

	"github.com/cardscan/cardscan/internal/clobber"
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

// outputFiles are the files the run writes: --valid-out, --invalid-out,
// --summary, and standard output when findings or the summary go there.
func (o *options) outputFiles() []clobber.File {
	var files []clobber.File
	for _, f := range []clobber.File{{Role: "--valid-out", Path: o.validOut}, {Role: "--invalid-out", Path: o.invalidOut}, {Role: "--summary", Path: o.summary}} {
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
	for _, k := range o.keys {
		read = append(read, clobber.File{Role: "--keys", Path: k})
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
			con.Printf("note: not reading %s: it is the %s file", in.Name, out.Role)
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
