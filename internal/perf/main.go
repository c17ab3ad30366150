// Command perf measures cardscan's throughput on an NDJSON dump and a zstd
// copy of it (`make perf` generates 100 MB of agentcard cards, 1.7 KB each,
// 5% defective, with corpus/cardgen) and prints a table: the validator
// alone on one core, then cardscan --quiet with -j 1, -j 2, and -j 2 on the
// zstd copy; then cardscan --cross-card on the dump and cardscan diff of the
// dump and its zstd copy (every card matched, none changed: a daily crawl's
// common case), each beside plain validation with -j 2; then the dump's
// JSON cards (the lines that parse) as NDJSON and as a JSON array of one
// card per line, with -j 2, side by side.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
)

func main() {
	dump := flag.String("dump", "bin/perf/agentcard-100mb.ndjson", "the NDJSON dump")
	zdump := flag.String("zdump", "bin/perf/agentcard-100mb.ndjson.zst", "the same dump, zstd-compressed")
	bin := flag.String("cardscan", "bin/cardscan", "the cardscan binary to measure")
	runs := flag.Int("runs", 9, "rounds of measurements; the fastest of each counts")
	flag.Parse()
	if err := run(*dump, *zdump, *bin, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "perf: error:", err)
		os.Exit(1)
	}
}

func run(dump, zdump, bin string, runs int) error {
	data, err := os.ReadFile(dump)
	if err != nil {
		return err
	}
	records := bytes.Count(data, []byte{'\n'})
	fmt.Printf("dump: %s, %.1f MB, %d cards of %.0f bytes on average; zstd copy %.1f MB\n\n",
		dump, float64(len(data))/1e6, records, float64(len(data))/float64(records), fileSize(zdump)/1e6)

	benchMBs, err := coreBenchmark()
	if err != nil {
		return err
	}
	cardsNDJSON, cardsArray, err := framingInputs(dump, data)
	if err != nil {
		return err
	}
	rows := []struct {
		name   string
		args   []string
		inputs float64 // dumps read, for MB/s
	}{
		{"cardscan --quiet -j 1", []string{"--quiet", "--progress", "never", "-j", "1", dump}, 1},
		{"cardscan --quiet -j 2", []string{"--quiet", "--progress", "never", "-j", "2", dump}, 1},
		{"cardscan --quiet -j 2 (zstd)", []string{"--quiet", "--progress", "never", "-j", "2", zdump}, 1},
		{"cardscan --quiet --cross-card -j 2", []string{"--quiet", "--progress", "never", "--cross-card", "-j", "2", dump}, 1},
		{"cardscan diff -j 2 (dump, its zstd copy)", []string{"diff", "--format", "jsonl", "-j", "2", dump, zdump}, 2},
		{"cardscan --quiet -j 2 --input ndjson, the dump's JSON cards", []string{"--quiet", "--progress", "never", "-j", "2", "--input", "ndjson", cardsNDJSON}, 1},
		{"cardscan --quiet -j 2 --input json, the same cards as an array", []string{"--quiet", "--progress", "never", "-j", "2", "--input", "json", cardsArray}, 1},
	}
	// Rounds interleave the measurements, so that on a shared machine a
	// busy spell slows all of them alike rather than one.
	core := time.Duration(1 << 62)
	fastest := make([]time.Duration, len(rows))
	for i := range fastest {
		fastest[i] = 1 << 62
	}
	for range runs {
		core = min(core, validateAll(data))
		for i, r := range rows {
			start := time.Now()
			err := exec.Command(bin, r.args...).Run()
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
				return fmt.Errorf("%s: %v", r.name, err)
			}
			fastest[i] = min(fastest[i], time.Since(start))
		}
	}
	coreMBs := float64(len(data)) / 1e6 / core.Seconds()
	mbs := make([]float64, len(rows))
	for i, d := range fastest {
		mbs[i] = rows[i].inputs * float64(len(data)) / 1e6 / d.Seconds()
	}
	// The framing rows are of the NDJSON file's bytes, so that they
	// compare cards per second.
	cardsMB := fileSize(cardsNDJSON) / 1e6
	mbs[5], mbs[6] = cardsMB/fastest[5].Seconds(), cardsMB/fastest[6].Seconds()

	fmt.Printf("| measurement | MB/s | ratio | target |\n|---|---:|---:|---|\n")
	fmt.Printf("| BenchmarkValidator_Validate/1.7KB (8 cards, cache-warm) | %.0f | | |\n", benchMBs)
	fmt.Printf("| fastvalidate alone on this dump, one goroutine | %.0f | | |\n", coreMBs)
	fmt.Printf("| %s | %.0f | %.2fx of the validator alone on this dump (%.2fx of the benchmark) | >= 0.85x |\n", rows[0].name, mbs[0], mbs[0]/coreMBs, mbs[0]/benchMBs)
	fmt.Printf("| %s | %.0f | %.2fx of -j 1 | >= 1.8x |\n", rows[1].name, mbs[1], mbs[1]/mbs[0])
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 uncompressed | >= 0.75x |\n", rows[2].name, mbs[2], mbs[2]/mbs[1])
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 | >= 0.5x |\n", rows[3].name, mbs[3], mbs[3]/mbs[1])
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 (MB of both dumps) | >= 0.5x |\n", rows[4].name, mbs[4], mbs[4]/mbs[1])
	fmt.Printf("| %s | %.0f | | |\n", rows[5].name, mbs[5])
	fmt.Printf("| %s | %.0f | %.2fx of NDJSON (%.0f MB/s of the array's bytes) | >= 0.8x |\n", rows[6].name, mbs[6], mbs[6]/mbs[5], fileSize(cardsArray)/1e6/fastest[6].Seconds())
	fmt.Printf("\nfastest of %d interleaved rounds, wall clock of the whole process, MB = 10^6 bytes of NDJSON.\n", runs)
	return nil
}

// validateAll judges every line with one Validator: the ceiling for
// cardscan -j 1.
func validateAll(data []byte) time.Duration {
	v := fastvalidate.MustNew("agentcard")
	start := time.Now()
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		v.Validate(data[:i])
		data = data[min(i+1, len(data)):]
	}
	return time.Since(start)
}

// coreBenchmark runs fastvalidate's own 1.7 KB benchmark and returns its
// MB/s.
func coreBenchmark() (float64, error) {
	out, err := exec.Command("go", "test", "-run=NONE", "-bench=Validator_Validate/1.7KB/validate$", "-benchtime=2s", "./fastvalidate/").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("core benchmark: %v\n%s", err, out)
	}
	for _, f := range bytes.Split(out, []byte("\n")) {
		fields := strings.Fields(string(f))
		for i := 1; i < len(fields); i++ {
			if fields[i] == "MB/s" && strings.HasPrefix(fields[0], "BenchmarkValidator_Validate/1.7KB/validate") {
				return strconv.ParseFloat(fields[i-1], 64)
			}
		}
	}
	return 0, fmt.Errorf("core benchmark: no MB/s in\n%s", out)
}

func fileSize(path string) float64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return float64(st.Size())
}

// framingInputs returns the paths of the dump's JSON cards (its lines that
// parse) as NDJSON and as a JSON array of one card per line, beside the
// dump, writing them the first time.
func framingInputs(dump string, data []byte) (ndjson, array string, err error) {
	base := strings.TrimSuffix(dump, ".ndjson")
	ndjson, array = base+"-cards.ndjson", base+"-cards.json"
	if fileSize(ndjson) > 0 && fileSize(array) > 0 {
		return ndjson, array, nil
	}
	var lines, arr bytes.Buffer
	arr.WriteString("[")
	for line := range bytes.Lines(data) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if !json.Valid(line) {
			continue
		}
		if lines.Len() > 0 {
			arr.WriteString(",")
		}
		arr.WriteString("\n")
		arr.Write(line)
		lines.Write(line)
		lines.WriteByte('\n')
	}
	arr.WriteString("\n]\n")
	if err := os.WriteFile(ndjson, lines.Bytes(), 0o644); err != nil {
		return "", "", err
	}
	return ndjson, array, os.WriteFile(array, arr.Bytes(), 0o644)
}
