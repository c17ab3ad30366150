package report

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %v, %v", f, got, err)
		}
	}
	for _, tc := range []struct {
		name    string
		allowed []Format
		want    string
	}{
		{"xml", nil, `"xml": want text, jsonl, github, sarif, junit or codequality`},
		{"none", nil, `"none": want text, jsonl, github, sarif, junit or codequality`},
		{"sarif", []Format{FormatText, FormatJSONL}, `"sarif": want text or jsonl`},
		{"", []Format{FormatText}, `"": want text`},
	} {
		_, err := ParseFormat(tc.name, tc.allowed...)
		var fe *FormatError
		if !errors.As(err, &fe) || err.Error() != tc.want {
			t.Errorf("ParseFormat(%q, %v): %v, want %s", tc.name, tc.allowed, err, tc.want)
		}
	}
}

// TestWriterAcross: every format that renders verdicts either renders a
// finding across records or, being a document with no place for one,
// renders nothing; none falls back to another format's rendering.
func TestWriterAcross(t *testing.T) {
	a := &Across{Code: fastvalidate.CodeDumpDuplicateID, Severity: fastvalidate.SeverityWarning, Kind: "id", Key: "k", Message: "m"}
	places := []Place{{Input: "in", Line: 1}, {Input: "in", Line: 2}}
	var enc Encoder
	text := string(FormatText.Writer(nil, WriterOptions{}).Across(nil, &enc, a, places))
	for _, f := range append([]Format{FormatNone}, Formats...) {
		got := string(f.Writer(nil, WriterOptions{}).Across(nil, &enc, a, places))
		switch f {
		case FormatNone, FormatJUnit, FormatCodeQuality:
			if got != "" {
				t.Errorf("%s: %q, want nothing", f, got)
			}
		case FormatText:
			if got == "" {
				t.Errorf("text: nothing")
			}
		default:
			if got == "" || got == text {
				t.Errorf("%s: %q", f, got)
			}
		}
	}
}

// TestStreamAcross: a finding streamed a place at a time is what Across
// renders with all its places.
func TestStreamAcross(t *testing.T) {
	a := &Across{Code: fastvalidate.CodeDumpDuplicateID, Severity: fastvalidate.SeverityError, Kind: "id", Key: "k", Message: "same id"}
	places := []Place{{Input: "a.ndjson", Line: 1}, {Input: "b\x1b.ndjson", Line: 7}, {Input: "c", Line: 9}}
	for _, f := range []Format{FormatText, FormatJSONL, FormatGitHub, FormatSARIF} {
		var enc Encoder
		want := f.Writer(nil, WriterOptions{}).Across(nil, &enc, a, places)
		var got bytes.Buffer
		w := f.Writer(&got, WriterOptions{})
		err := StreamAcross(w, &got, &enc, a, places[0], func(yield func(Place) error) error {
			for _, p := range places[1:] {
				if err := yield(p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil || got.String() != string(want) {
			t.Errorf("%s: %v\n%s\nwant\n%s", f, err, got.String(), want)
		}
	}
}
