// Package jcstest holds the RFC 8785 test vectors that both the internal
// canonicaliser and the public canon package are held to, so the two test
// suites read one copy of the RFC's table.
package jcstest

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// Number is one row of RFC 8785 appendix B: a float64's IEEE 754 bits and
// the text canonical JSON writes for it.
type Number struct {
	Bits uint64
	Want string
}

//go:embed rfc8785-numbers.txt
var rfc8785Numbers string

// RFC8785Numbers returns appendix B's rows; a line of the embedded table
// that does not parse fails tb, naming it.
func RFC8785Numbers(tb testing.TB) []Number {
	tb.Helper()
	rows, err := parseNumbers()
	if err != nil {
		tb.Fatal(err)
	}
	return rows
}

func parseNumbers() ([]Number, error) {
	var rows []Number
	for i, line := range strings.Split(rfc8785Numbers, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hex, want, ok := strings.Cut(line, " ")
		bits, err := strconv.ParseUint(hex, 16, 64)
		if !ok || err != nil || want == "" {
			return nil, fmt.Errorf("rfc8785-numbers.txt:%d: want HEXBITS TEXT, got %q", i+1, line)
		}
		rows = append(rows, Number{bits, want})
	}
	return rows, nil
}
