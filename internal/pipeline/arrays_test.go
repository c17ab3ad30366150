package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// arrayLayout writes an array of cards (each as compact JSON) the way one
// writer does, and says where each element starts.
type arrayLayout struct {
	name string
	// indent writes one element; join and the brackets wrap them.
	element          func(string) string
	open, join, tail string
}

var arrayLayouts = []arrayLayout{
	{"one element per line", func(c string) string { return c }, "[\n", ",\n", "\n]\n"},
	{"all on one line", func(c string) string { return c }, "[", ",", "]\n"},
	// As jq -s . writes it: elements indented by two, their members by
	// four, nested arrays and objects deeper.
	{"pretty", func(c string) string {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(c), "  ", "  "); err != nil {
			panic(err)
		}
		return "  " + b.String()
	}, "[\n", ",\n", "\n]\n"},
}

// arrayDefect breaks one element's text as written; extra says how many
// elements of its own it makes beside the card's (garbage between two
// commas is one).
type arrayDefect struct {
	name  string
	apply func(string) string
	extra int
	// oneLine is false where no line shows where the next element
	// starts, so that on one line the element takes the rest of it.
	oneLine bool
}

var arrayDefects = []arrayDefect{
	{"unterminated string", func(e string) string { return strings.Replace(e, `"n",`, `"n,`, 1) }, 0, false},
	{"missing inner bracket", func(e string) string { return strings.Replace(e, "]", "", 1) }, 0, true},
	{"missing closing brace", func(e string) string { i := strings.LastIndexByte(e, '}'); return e[:i] + e[i+1:] }, 0, false},
	{"stray close bracket", func(e string) string { return strings.Replace(e, `"1.0.0"`, `"1.0.0"]`, 1) }, 0, true},
	{"stray close brace", func(e string) string { return e + "}" }, 0, true},
	{"garbage after the element", func(e string) string { return e + ` xyz 12 "s" [3]` }, 0, true},
	{"garbage between commas", func(e string) string { return e }, 1, true},
}

// buildArray writes four cards in layout l, the one at bad broken by d,
// and returns it with the offsets where records must start and which of
// them must be invalid.
func buildArray(l arrayLayout, d arrayDefect, bad int) (string, []int64, []bool) {
	var b strings.Builder
	var starts []int64
	var invalid []bool
	b.WriteString(l.open)
	for i := range 4 {
		if i > 0 {
			b.WriteString(l.join)
		}
		e := l.element(card)
		if i == bad {
			if d.extra > 0 {
				// The garbage is an element before the card.
				starts, invalid = append(starts, int64(b.Len())), append(invalid, true)
				b.WriteString("xyz" + l.join)
			}
			e = d.apply(e)
		}
		starts = append(starts, int64(b.Len()+len(e)-len(strings.TrimLeft(e, " "))))
		invalid = append(invalid, i == bad && d.extra == 0)
		b.WriteString(e)
	}
	b.WriteString(l.tail)
	return b.String(), starts, invalid
}

type arrayVerdict struct {
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	Valid  bool  `json:"valid"`
	Errors []struct {
		Rule   string `json:"rule"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
	} `json:"errors"`
}

// TestArrayElementsAreRecords checks that every element of a top-level
// array is exactly one record whatever is wrong in one of them (first,
// in the middle, last), written one per line, on one line and as jq -s .
// writes it: each card at its offset, only the broken element invalid,
// with a finding that names its line and column. Where a layout gives no
// way to find the next element (see arrayDefect.oneLine) the broken
// element runs to the end of the input, one record.
func TestArrayElementsAreRecords(t *testing.T) {
	for _, l := range arrayLayouts {
		for _, d := range arrayDefects {
			for _, bad := range []int{0, 1, 3} {
				name := fmt.Sprintf("%s/%s/element %d", l.name, d.name, bad)
				t.Run(name, func(t *testing.T) {
					input, starts, invalid := buildArray(l, d, bad)
					if l.name == "all on one line" && !d.oneLine {
						// The element starting at bad takes the rest.
						k := bad + d.extra
						starts, invalid = append(starts[:k], starts[k]), append(invalid[:k], true)
					}
					for _, chunk := range []int{1 << 16, 100, 16} {
						checkArrayRecords(t, input, chunk, starts, invalid)
					}
				})
			}
		}
	}
}

func checkArrayRecords(t *testing.T, input string, chunk int, starts []int64, invalid []bool) {
	t.Helper()
	var out bytes.Buffer
	st, err := Run(Config{Profile: "agentcard", Jobs: 2, ChunkSize: chunk, MaxRecord: 1 << 20, All: true,
		Findings: jsonlTo(&out, true), Stdin: strings.NewReader(input)}, []Input{{Name: "in"}})
	if err != nil {
		t.Fatal(err)
	}
	var vs []arrayVerdict
	dec := json.NewDecoder(&out)
	for {
		var v arrayVerdict
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if st.Records != int64(len(starts)) || len(vs) != len(starts) {
		t.Fatalf("chunks of %d: %d records (%d verdicts), want %d, in\n%s", chunk, st.Records, len(vs), len(starts), input)
	}
	for i, v := range vs {
		if v.Offset != starts[i] || v.Valid == invalid[i] {
			t.Fatalf("chunks of %d: record %d at %d (valid %v), want %d (valid %v), in\n%s", chunk, i, v.Offset, v.Valid, starts[i], !invalid[i], input)
		}
		if invalid[i] {
			lines := 1 + int64(strings.Count(input[:v.Offset], "\n"))
			if len(v.Errors) == 0 || v.Errors[0].Line < int(lines) || v.Errors[0].Column < 1 {
				t.Errorf("chunks of %d: record %d: findings %+v name no place at or after line %d", chunk, i, v.Errors, lines)
			}
		}
	}
}
