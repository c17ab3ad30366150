package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunSplitsLikeEveryOtherDriver(t *testing.T) {
	// CRLF endings, blank lines and an unterminated last line: the
	// records every driver, the ajv script included, must see alike.
	data := []byte("good\r\n\nbad\n\r\ngood\nbad")
	var seen []string
	r := Run("t", data, func(rec []byte) bool {
		seen = append(seen, string(rec))
		return string(rec) == "good"
	})
	if got := strings.Join(seen, ","); got != "good,bad,good,bad" {
		t.Errorf("records = %q", got)
	}
	if r.Records != 4 || r.Valid != 2 || r.Invalid != 2 || r.Bytes != int64(len(data)) || r.Tool != "t" {
		t.Errorf("report = %+v", r)
	}
	if r.Seconds <= 0 || r.CPUSeconds < 0 {
		t.Errorf("seconds = %v, CPU seconds = %v", r.Seconds, r.CPUSeconds)
	}
}

func TestWriteVerdictsOneLinePerRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v")
	data := []byte("a\n\nb\nc\n")
	err := writeVerdicts(path, data, func(rec []byte) (bool, string) {
		if rec[0] == 'b' {
			return false, "/x: rule: two\nlines\tand a tab"
		}
		return true, ""
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "0\t1\n1\t0\t/x: rule: two lines and a tab\n2\t1\n"
	if !bytes.Equal(got, []byte(want)) {
		t.Errorf("listing = %q, want %q", got, want)
	}
}

func TestRunCountsCPUTime(t *testing.T) {
	// A judge that burns 50 ms of wall time must show some CPU time: the
	// column that keeps the table honest on a busy machine.
	r := Run("t", []byte("x\n"), func([]byte) bool {
		for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		}
		return true
	})
	if r.CPUSeconds <= 0 || r.CPUSeconds > r.Seconds*2+0.01 {
		t.Errorf("CPU seconds = %v for a %v s loop", r.CPUSeconds, r.Seconds)
	}
}
