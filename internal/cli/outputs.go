package cli

import (
	"io"
	"os"
	"strings"

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
	f, err := os.Create(path)
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
