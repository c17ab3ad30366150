package cmdflag

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "64KiB": 64 << 10, "16MiB": 16 << 20, "1g": 1 << 30, "2 MB": 2 << 20, "7b": 7, "1024GiB": 1 << 40, "1TiB": 1 << 40, "1t": 1 << 40} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5M", "MiB", "9999999999G", "1025GiB", "12 apples"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) succeeded", in)
		}
	}
	// The largest size is written as the help and docs write sizes; one
	// past it is named as too large, not as no size at all.
	for in, want := range map[string]string{
		"2TiB":    `"2TiB" is more than 1TiB, the largest size`,
		"1025GiB": `"1025GiB" is more than 1TiB, the largest size`,
		"1e3":     `"1e3" is not a size such as 4096, 64KiB or 16MiB`,
	} {
		if _, err := ParseSize(in); err == nil || err.Error() != want {
			t.Errorf("ParseSize(%q): %v, want %s", in, err, want)
		}
	}
	var s Size
	if err := s.Set("2MiB"); err != nil || s != 2<<20 || s.String() != "2MiB" {
		t.Errorf("Size.Set(2MiB): %v, %d, %q", err, s, s.String())
	}
	for n, want := range map[Size]string{0: "0", 7: "7", 4096: "4KiB", 1536: "1536", 16 << 20: "16MiB", 3 << 30: "3GiB", 1<<20 + 1<<10: "1025KiB", 1 << 40: "1TiB", 1<<40 - 1<<30: "1023GiB"} {
		if got := n.String(); got != want {
			t.Errorf("Size(%d).String() = %q, want %q", n, got, want)
		}
		if back, err := ParseSize(want); err != nil || Size(back) != n {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", want, back, err, n)
		}
	}
}

func TestWantColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if WantColor("auto", os.Stdout) {
		t.Error("NO_COLOR is set, yet colour is on")
	}
	if !WantColor("always", io.Discard) || WantColor("never", os.Stdout) {
		t.Error("--color always/never not obeyed")
	}
	t.Setenv("NO_COLOR", "")
	if WantColor("auto", &bytes.Buffer{}) {
		t.Error("colour on for a buffer")
	}
}

// TestTyped: an error about a flag's value quotes it as the user wrote
// it; a flag left out reads as its default.
func TestTyped(t *testing.T) {
	var size Size = 1 << 20
	var n, m int
	var fs Set
	fs.Var(&size, "--max-message SIZE", "")
	fs.Int(&n, "-j, --jobs N", 4, "")
	fs.Int(&m, "--other N", 7, "")
	if _, err := fs.Parse([]string{"--max-message=2048M", "-j", "+016"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"max-message": "2048M", "jobs": "+016", "j": "+016", "other": "7", "nope": ""} {
		if got := fs.Typed(name); got != want {
			t.Errorf("Typed(%q) = %q, want %q", name, got, want)
		}
	}
}
