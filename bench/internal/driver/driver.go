// Package driver is the harness every comparison driver shares. A driver
// reads one NDJSON corpus into memory, times its judging loop alone, and
// prints one JSON report line, so that the orchestrator compares validators
// and not file systems.
package driver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// Report is the line a driver prints on stdout. Bytes counts the NDJSON
// bytes judged (decompressed, for a compressed input), so that MB/s compares
// like with like. Seconds is the loop's wall time; CPUSeconds the CPU time
// the whole process spent meanwhile, which other processes on a busy
// machine do not inflate.
type Report struct {
	Tool       string  `json:"tool"`
	Records    int     `json:"records"`
	Valid      int     `json:"valid"`
	Invalid    int     `json:"invalid"`
	Bytes      int64   `json:"bytes"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// Judge reports whether one record passes. It is called for every non-empty
// line, in order, from one goroutine.
type Judge func(record []byte) bool

// Explain is the slow twin of Judge for the verdict listing: it also says
// why a record fails, in the tool's own words.
type Explain func(record []byte) (ok bool, why string)

// verdicts, when set, names a file that receives one line per record,
// "index<TAB>1" or "index<TAB>0<TAB>reason", for comparing verdicts.
var verdicts = flag.String("verdicts", "", "also write per-record verdicts with reasons to `file`")

// Main parses the command line (flags, then the corpus path), calls setup,
// runs the judge it returns over every record of the corpus, and prints the
// Report. With -verdicts it then writes the verdict listing, untimed.
// Drivers define their own flags before calling Main and read them in setup.
func Main(tool string, setup func() (Judge, Explain)) {
	MainNamed(func() (string, Judge, Explain) {
		judge, explain := setup()
		return tool, judge, explain
	})
}

// MainNamed is Main for drivers whose tool name depends on their flags.
func MainNamed(setup func() (tool string, judge Judge, explain Explain)) {
	flag.Parse()
	tool, judge, explain := setup()
	data := readCorpus()
	r := Run(tool, data, judge)
	if *verdicts != "" {
		if err := writeVerdicts(*verdicts, data, explain); err != nil {
			fail(err)
		}
	}
	emit(r)
}

// Fatal reports a setup error and exits.
func Fatal(err error) { fail(err) }

// MainRaw is Main for drivers whose loop is not one call per record, such as
// a decompressor: loop gets the whole file and returns the report's counts
// and bytes; Main adds the tool name and the time.
func MainRaw(tool string, loop func(data []byte) Report) {
	flag.Parse()
	data := readCorpus()
	cpu, start := cpuTime(), time.Now()
	r := loop(data)
	r.Seconds = time.Since(start).Seconds()
	r.CPUSeconds = cpuTime() - cpu
	r.Tool = tool
	emit(r)
}

// Run times judge over every record of data.
func Run(tool string, data []byte, judge Judge) Report {
	r := Report{Tool: tool, Bytes: int64(len(data))}
	cpu, start := cpuTime(), time.Now()
	for rest := data; len(rest) > 0; {
		var rec []byte
		rec, rest = Next(rest)
		if len(rec) == 0 {
			continue
		}
		r.Records++
		if judge(rec) {
			r.Valid++
		}
	}
	r.Seconds = time.Since(start).Seconds()
	r.CPUSeconds = cpuTime() - cpu
	r.Invalid = r.Records - r.Valid
	return r
}

// Next cuts the first line off data, without its "\n" or "\r\n". Empty
// lines are records of length zero, which every driver skips.
func Next(data []byte) (record, rest []byte) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		record, rest = data, nil
	} else {
		record, rest = data[:i], data[i+1:]
	}
	if n := len(record); n > 0 && record[n-1] == '\r' {
		record = record[:n-1]
	}
	return record, rest
}

// cpuTime returns the user and system CPU seconds of the process so far,
// every thread included (the garbage collector's too).
func cpuTime() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func writeVerdicts(path string, data []byte, explain Explain) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var line []byte
	i := 0
	for rest := data; len(rest) > 0; {
		var rec []byte
		rec, rest = Next(rest)
		if len(rec) == 0 {
			continue
		}
		ok, why := explain(rec)
		line = strconv.AppendInt(line[:0], int64(i), 10)
		if ok {
			line = append(line, "\t1\n"...)
		} else {
			line = append(line, "\t0\t"...)
			line = appendOneLine(line, why)
			line = append(line, '\n')
		}
		w.Write(line)
		i++
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// appendOneLine keeps a reason on one line of the listing.
func appendOneLine(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n', '\r', '\t':
			dst = append(dst, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func readCorpus() []byte {
	if flag.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "usage: %s [flags] corpus.ndjson\n", os.Args[0])
		flag.PrintDefaults()
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fail(err)
	}
	return data
}

func emit(r Report) {
	out, err := json.Marshal(r)
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(out, '\n'))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "%s: error: %v\n", os.Args[0], err)
	os.Exit(3)
}
