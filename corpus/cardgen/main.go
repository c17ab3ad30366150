// Command cardgen writes generated agent cards as NDJSON, one card a line.
//
//	cardgen -seed 1 -n 10000 -dialect agentcard -defects 0.05 -o cards.ndjson.zst -truth truth.tsv
//	cardgen -size 100MB -dialect all -o dump.ndjson
//	cardgen -sample -o corpus/sample.ndjson.zst
//
// The same flags give the same bytes. An output name ending in .zst or .gz
// is compressed. The truth file is TSV with a header: line, dialect,
// defect, rule (the last two empty for a valid card).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/corpus"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const (
	exitOK    = 0
	exitUsage = 2
	exitIO    = 3
)

// The sample corpus shipped as corpus/sample.ndjson.zst: every dialect,
// and enough defective cards that every defect kind appears at least once.
var sample = struct {
	seed uint64
	n    int
	rate float64
}{seed: 1, n: 3000, rate: 0.3}

type config struct {
	seed     uint64
	n        int
	size     int64
	dialects []string
	rate     float64
	kinds    []string
	out      string
	truth    string
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errReported):
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "cardgen: error: %v\n", err)
		return exitUsage
	}
	g, err := corpus.New(corpus.Options{Seed: cfg.seed, Dialects: cfg.dialects, DefectRate: cfg.rate, Defects: cfg.kinds})
	if err != nil {
		fmt.Fprintf(stderr, "cardgen: error: %v\n", err)
		return exitUsage
	}
	if err := generate(g, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "cardgen: error: %v\n", err)
		return exitIO
	}
	return exitOK
}

// errReported is a usage error the flag package has already printed.
var errReported = errors.New("reported")

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("cardgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      config
		size     string
		dialects string
		kinds    string
		preset   bool
	)
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed; the same flags give the same bytes")
	fs.IntVar(&cfg.n, "n", 0, "number of cards (default 1000 unless -size is given)")
	fs.StringVar(&size, "size", "", "approximate output size before compression, e.g. 100MB, 512KiB")
	fs.StringVar(&dialects, "dialect", "agentcard", "comma-separated dialects, \"a2a\" for every A2A version, or \"all\": "+strings.Join(corpus.Dialects(), ", "))
	fs.Float64Var(&cfg.rate, "defects", 0, "fraction of cards, 0 to 1, that carry a defect")
	fs.StringVar(&kinds, "kinds", "", "comma-separated defect kinds to restrict to (default all)")
	fs.StringVar(&cfg.out, "o", "-", "output file; a .zst or .gz name compresses; - is stdout")
	fs.StringVar(&cfg.truth, "truth", "", "write line, dialect, defect and rule of every card to this TSV file")
	fs.BoolVar(&preset, "sample", false, "write the sample corpus (seed 1, 3000 cards of every dialect, 30% defects); only -o and -truth may be given with it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, errReported
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if preset {
		fixed := map[string]bool{"o": true, "truth": true, "sample": true}
		var bad error
		fs.Visit(func(f *flag.Flag) {
			if !fixed[f.Name] {
				bad = fmt.Errorf("-sample fixes every flag but -o and -truth; drop -%s", f.Name)
			}
		})
		if bad != nil {
			return cfg, bad
		}
		cfg.seed, cfg.n, cfg.rate, cfg.dialects = sample.seed, sample.n, sample.rate, corpus.Dialects()
		return cfg, nil
	}
	if size != "" {
		if cfg.n != 0 {
			return cfg, errors.New("give -n or -size, not both")
		}
		var err error
		if cfg.size, err = parseSize(size); err != nil {
			return cfg, err
		}
	} else if cfg.n == 0 {
		cfg.n = 1000
	}
	if cfg.n < 0 {
		return cfg, fmt.Errorf("-n %d is negative", cfg.n)
	}
	for _, d := range strings.Split(dialects, ",") {
		switch d = strings.TrimSpace(d); d {
		case "all":
			cfg.dialects = append(cfg.dialects, corpus.Dialects()...)
		case "a2a":
			for _, name := range corpus.Dialects() {
				if strings.HasPrefix(name, "a2a/") {
					cfg.dialects = append(cfg.dialects, name)
				}
			}
		default:
			cfg.dialects = append(cfg.dialects, d)
		}
	}
	if kinds != "" {
		cfg.kinds = strings.Split(kinds, ",")
	}
	return cfg, nil
}

// parseSize reads a byte count with an optional unit, in any case: KB, MB,
// GB are powers of 1000, KiB, MiB, GiB powers of 1024.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		scale  float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"b", 1}}
	num, scale := strings.ToLower(strings.TrimSpace(s)), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.scale
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v*scale >= 1 && v*scale <= 1<<50) {
		return 0, fmt.Errorf("bad -size %q: want a positive size such as 100MB", s)
	}
	return int64(v * scale), nil
}

func generate(g *corpus.Generator, cfg config, stdout io.Writer) (err error) {
	out, closeOut, err := create(cfg.out, stdout)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeOut(); err == nil {
			err = cerr
		}
	}()
	var truth *bufio.Writer
	if cfg.truth != "" {
		f, err := os.Create(cfg.truth)
		if err != nil {
			return err
		}
		defer func() {
			if ferr := truth.Flush(); err == nil {
				err = ferr
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		truth = bufio.NewWriter(f)
		truth.WriteString("line\tdialect\tdefect\trule\n")
	}
	var written int64
	var line []byte
	for i := 1; cfg.size > 0 && written < cfg.size || cfg.size == 0 && i <= cfg.n; i++ {
		c := g.Next()
		line = append(append(line[:0], c.JSON...), '\n')
		if _, err := out.Write(line); err != nil {
			return err
		}
		written += int64(len(line))
		if truth != nil {
			fmt.Fprintf(truth, "%d\t%s\t%s\t%s\n", i, c.Dialect, c.Defect, c.Rule)
		}
	}
	return nil
}

// create opens the output, compressing by its name, and returns a function
// that flushes and closes every layer.
func create(name string, stdout io.Writer) (io.Writer, func() error, error) {
	var dst io.Writer = stdout
	closeFile := func() error { return nil }
	if name != "-" {
		f, err := os.Create(name)
		if err != nil {
			return nil, nil, err
		}
		dst, closeFile = f, f.Close
	}
	var enc io.WriteCloser
	switch {
	case strings.HasSuffix(name, ".zst"):
		// One encoder goroutine: the frame layout then cannot depend on
		// scheduling, and the same cards always give the same bytes.
		z, err := zstd.NewWriter(dst, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			closeFile()
			return nil, nil, err
		}
		enc = z
	case strings.HasSuffix(name, ".gz"):
		z, err := gzip.NewWriterLevel(dst, gzip.BestCompression)
		if err != nil {
			closeFile()
			return nil, nil, err
		}
		enc = z
	}
	var w io.Writer = dst
	if enc != nil {
		w = enc
	}
	buf := bufio.NewWriterSize(w, 1<<20)
	return buf, func() error {
		err := buf.Flush()
		if enc != nil {
			if cerr := enc.Close(); err == nil {
				err = cerr
			}
		}
		if cerr := closeFile(); err == nil {
			err = cerr
		}
		return err
	}, nil
}
