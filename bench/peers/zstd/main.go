// Command zstd decompresses a .zst corpus with klauspost/compress on one
// goroutine and counts its lines: the floor under any validator that reads
// compressed dumps.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/klauspost/compress/zstd"
)

func main() {
	driver.MainRaw("zstd decode", decode)
}

func decode(compressed []byte) driver.Report {
	dec, err := zstd.NewReader(bytes.NewReader(compressed),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		fatal(err)
	}
	defer dec.Close()
	var r driver.Report
	buf := make([]byte, 1<<20)
	last := byte('\n')
	for {
		n, err := dec.Read(buf)
		if n > 0 {
			r.Bytes += int64(n)
			r.Records += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fatal(err)
		}
	}
	if last != '\n' {
		r.Records++ // an unterminated last line
	}
	r.Valid = r.Records
	return r
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "zstd: error: %v\n", err)
	os.Exit(3)
}
