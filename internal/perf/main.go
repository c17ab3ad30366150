// Command perf measures cardscan's throughput on an NDJSON dump and a zstd
// copy of it (`make perf` generates 100 MB of agentcard cards, 1.7 KB each,
// 5% defective, with corpus/cardgen) and prints a table: the validator
// alone on one core, then cardscan --quiet with -j 1, -j 2, and -j 2 on the
// zstd copy; then cardscan --cross-card on the dump and cardscan diff of the
// dump and its zstd copy (every card matched, none changed: a daily crawl's
// common case), each beside plain validation with -j 2; then the dump's
// JSON cards (the lines that parse) as NDJSON and as a JSON array of one
// card per line, with -j 2, side by side.
//
// On a shared machine the wall clock says as much about the neighbours as
// about cardscan, so each row also has its CPU time (user + system), and
// the figures are the fastest and the median of interleaved rounds. Two
// ceilings measured in the same rounds say what the machine gave: the
// validator on two goroutines against one (what -j 2 can reach), and
// the zstd decoder alone (with the validator, the bound for -j 2 on the
// zstd copy). The start-up rows time cardscan on a one-card file beside
// a Go binary that reads the file and exits. With -before, an earlier
// build runs the start-up and the -j 1, -j 2 and zstd rows in the same
// rounds, for a before and after measured side by side.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/klauspost/compress/zstd"
)

func main() {
	dump := flag.String("dump", "bin/perf/agentcard-100mb.ndjson", "the NDJSON dump")
	zdump := flag.String("zdump", "bin/perf/agentcard-100mb.ndjson.zst", "the same dump, zstd-compressed")
	bin := flag.String("cardscan", "bin/cardscan", "the cardscan binary to measure")
	runs := flag.Int("runs", 9, "rounds of throughput measurements, the fastest and the median of each shown (0: start-up only)")
	starts := flag.Int("starts", 101, "start-up measurements of each binary, interleaved (0: throughput only)")
	before := flag.String("before", "", "another cardscan binary (an earlier build) to time in the same rounds: start-up, -j 1, -j 2 and -j 2 on the zstd copy")
	flag.Parse()
	fmt.Printf("cpu: %s, %d cores; load average before: %s\n", cpuModel(), runtime.NumCPU(), loadAverage())
	if *starts < 0 || *runs < 0 {
		fmt.Fprintln(os.Stderr, "perf: error: -starts and -runs count rounds: want 0 or more")
		os.Exit(2)
	}
	if *starts > 0 {
		if err := startup(*bin, *before, *dump, *starts); err != nil {
			fmt.Fprintln(os.Stderr, "perf: error:", err)
			os.Exit(1)
		}
	}
	if *runs == 0 {
		return
	}
	if err := run(*dump, *zdump, *bin, *before, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "perf: error:", err)
		os.Exit(1)
	}
}

func run(dump, zdump, bin, before string, runs int) error {
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
	// The before binary runs the rows that judge the dump alone, in the
	// same rounds, after all the others, so that the ratios above keep
	// their rows.
	firstBefore := len(rows)
	if before != "" {
		for _, r := range rows[:3] {
			r.name += ", before (" + before + ")"
			rows = append(rows, r)
		}
	}
	// Rounds interleave the measurements, so that on a shared machine a
	// busy spell slows all of them alike rather than one.
	var one, two, decode []sample
	times := make([][]sample, len(rows))
	for range runs {
		one = append(one, inProcess(func() { validateAll(data) }))
		two = append(two, inProcess(func() { validateHalves(data) }))
		d, err := inProcessErr(func() error { return decodeAll(zdump) })
		if err != nil {
			return err
		}
		decode = append(decode, d)
		for i, r := range rows {
			b := bin
			if i >= firstBefore {
				b = before
			}
			t, err := timeProcess(b, r.args...)
			if err != nil {
				return fmt.Errorf("%s: %v", r.name, err)
			}
			times[i] = append(times[i], t)
		}
	}
	fastest := make([]time.Duration, firstBefore)
	for i := range fastest {
		fastest[i] = fastestWall(times[i])
	}
	core := fastestWall(one)
	coreMBs := float64(len(data)) / 1e6 / core.Seconds()
	mbs := make([]float64, firstBefore)
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
	fmt.Printf("| fastvalidate alone on this dump, two goroutines | %.0f | %.2fx of one goroutine: what two cores gave | |\n",
		float64(len(data))/1e6/fastestWall(two).Seconds(), core.Seconds()/fastestWall(two).Seconds())
	fmt.Printf("| %s | %.0f | %.2fx of the validator alone on this dump (%.2fx of the benchmark) | >= 0.85x |\n", rows[0].name, mbs[0], mbs[0]/coreMBs, mbs[0]/benchMBs)
	fmt.Printf("| %s | %.0f | %.2fx of -j 1 (the validator on two goroutines: %.2fx) | >= 1.85x |\n", rows[1].name, mbs[1], mbs[1]/mbs[0], core.Seconds()/fastestWall(two).Seconds())
	bound := (fastestWall(decode) + fastest[0]) / 2
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 uncompressed; %.2fx of the two-core bound, (decode alone + -j 1) / 2 = %.3f s | >= 0.9x of the bound |\n",
		rows[2].name, mbs[2], mbs[2]/mbs[1], bound.Seconds()/fastest[2].Seconds(), bound.Seconds())
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 | >= 0.8x |\n", rows[3].name, mbs[3], mbs[3]/mbs[1])
	fmt.Printf("| %s | %.0f | %.2fx of -j 2 (MB of both dumps) | >= 0.8x |\n", rows[4].name, mbs[4], mbs[4]/mbs[1])
	fmt.Printf("| %s | %.0f | | |\n", rows[5].name, mbs[5])
	fmt.Printf("| %s | %.0f | %.2fx of NDJSON (%.0f MB/s of the array's bytes) | >= 0.8x |\n", rows[6].name, mbs[6], mbs[6]/mbs[5], fileSize(cardsArray)/1e6/fastest[6].Seconds())
	fmt.Printf("\nfastest of %d interleaved rounds, wall clock of the whole process, MB = 10^6 bytes of NDJSON.\n\n", runs)

	// The same rounds by median and by CPU time, which a busy neighbour
	// disturbs less than the wall clock.
	fmt.Printf("| measurement | wall, fastest | wall, median | CPU (user + system), least | CPU, median |\n|---|---:|---:|---:|---:|\n")
	printTimes("fastvalidate alone, one goroutine", one)
	printTimes("fastvalidate alone, two goroutines", two)
	printTimes("zstd decode alone (the pipeline's decoder options)", decode)
	for i, r := range rows {
		printTimes(r.name, times[i])
	}
	extra := medianCPU(times[2]) - medianCPU(decode) - medianCPU(times[0])
	fmt.Printf("\nCPU of -j 2 on the zstd copy beyond decode alone + -j 1 uncompressed (medians): %.3f s\n", extra.Seconds())
	fmt.Printf("load average after: %s\n", loadAverage())
	return nil
}

// sample is one measurement: wall clock and CPU time (user + system).
type sample struct{ wall, cpu time.Duration }

func fastestWall(s []sample) time.Duration {
	return slices.MinFunc(s, func(a, b sample) int { return int(a.wall - b.wall) }).wall
}

func median(s []sample, of func(sample) time.Duration) time.Duration {
	d := make([]time.Duration, len(s))
	for i := range s {
		d[i] = of(s[i])
	}
	slices.Sort(d)
	return d[len(d)/2]
}

func medianWall(s []sample) time.Duration {
	return median(s, func(x sample) time.Duration { return x.wall })
}
func medianCPU(s []sample) time.Duration {
	return median(s, func(x sample) time.Duration { return x.cpu })
}
func leastCPU(s []sample) time.Duration {
	return slices.MinFunc(s, func(a, b sample) int { return int(a.cpu - b.cpu) }).cpu
}

func printTimes(name string, s []sample) {
	fmt.Printf("| %s | %.3f s | %.3f s | %.3f s | %.3f s |\n", name,
		fastestWall(s).Seconds(), medianWall(s).Seconds(), leastCPU(s).Seconds(), medianCPU(s).Seconds())
}

// timeProcess runs bin with args and returns its wall clock and CPU
// time; exit status 1 (invalid cards found) is not an error.
func timeProcess(bin string, args ...string) (sample, error) {
	cmd := exec.Command(bin, args...)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
		return sample{}, err
	}
	return sample{wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}

// inProcess times f by the wall clock and this process's CPU time.
func inProcess(f func()) sample {
	s, _ := inProcessErr(func() error { f(); return nil })
	return s
}

func inProcessErr(f func() error) (sample, error) {
	cpu0 := processCPU()
	start := time.Now()
	err := f()
	return sample{time.Since(start), processCPU() - cpu0}, err
}

// startup times cardscan (and the before binary, when there is one) on a
// file of the dump's first card beside a Go binary that reads the file and
// exits, n times each, interleaved.
func startup(bin, before, dump string, n int) error {
	dir, err := os.MkdirTemp("", "cardscan-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	f, err := os.Open(dump)
	if err != nil {
		return err
	}
	head := make([]byte, 64<<10)
	k, _ := f.Read(head)
	f.Close()
	card, _, _ := bytes.Cut(head[:k], []byte("\n"))
	one := filepath.Join(dir, "one.json")
	if err := os.WriteFile(one, append(card, '\n'), 0o644); err != nil {
		return err
	}
	reader := filepath.Join(dir, "readfile")
	if out, err := exec.Command("go", "build", "-o", reader, "./internal/perf/readfile").CombinedOutput(); err != nil {
		return fmt.Errorf("building the reference binary: %v\n%s", err, out)
	}
	type binary struct {
		name string
		cmd  []string
		s    []sample
	}
	bins := []*binary{
		{name: "a Go binary that reads the file", cmd: []string{reader, one}},
		{name: "cardscan --quiet (" + bin + ")", cmd: []string{bin, "--quiet", "--progress", "never", one}},
	}
	if before != "" {
		bins = append(bins, &binary{name: "cardscan --quiet (" + before + ")", cmd: []string{before, "--quiet", "--progress", "never", one}})
	}
	for range n {
		for _, b := range bins {
			t, err := timeProcess(b.cmd[0], b.cmd[1:]...)
			if err != nil {
				return fmt.Errorf("%s: %v", b.name, err)
			}
			b.s = append(b.s, t)
		}
	}
	fmt.Printf("start-up on a one-card file (%d bytes), %d interleaved runs each:\n\n", len(card)+1, n)
	fmt.Printf("| binary | wall, fastest | wall, median | CPU, median | ÷ reader (fastest wall, median wall, median CPU) |\n|---|---:|---:|---:|---:|\n")
	ref := bins[0].s
	for _, b := range bins {
		fmt.Printf("| %s | %.2f ms | %.2f ms | %.2f ms | %.1fx, %.1fx, %.1fx |\n", b.name,
			ms(fastestWall(b.s)), ms(medianWall(b.s)), ms(medianCPU(b.s)),
			ms(fastestWall(b.s))/ms(fastestWall(ref)), ms(medianWall(b.s))/ms(medianWall(ref)), ms(medianCPU(b.s))/ms(medianCPU(ref)))
	}
	fmt.Printf("\ntarget: cardscan <= 2x the reader\n\n")
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// validateHalves judges the dump's two halves (cut at a line) on two
// goroutines at once, one Validator each: the ceiling for -j 2.
func validateHalves(data []byte) {
	mid := len(data) / 2
	if i := bytes.IndexByte(data[mid:], '\n'); i >= 0 {
		mid += i + 1
	}
	var wg sync.WaitGroup
	for _, half := range [][]byte{data[:mid], data[mid:]} {
		wg.Go(func() { validateAll(half) })
	}
	wg.Wait()
}

// decodeAll decompresses path with the options the pipeline uses and
// discards the output: decoding alone.
func decodeAll(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		return err
	}
	defer d.Close()
	_, err = io.Copy(io.Discard, d)
	return err
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
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
