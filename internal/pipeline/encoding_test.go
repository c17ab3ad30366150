package pipeline

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/cardscan/cardscan/internal/mediatype/encodingtest"
)

// TestForeignEncodingIsOneError checks that a UTF-16 or UTF-32 input, as
// Windows editors and PowerShell's > write it, is one error naming the
// input and its encoding, with no record judged: read as UTF-8 it was a
// json.syntax record for every line, none of them about the card.
func TestForeignEncodingIsOneError(t *testing.T) {
	card := "{\n  \"name\": \"Tax Assistant\",\n  \"url\": \"https://a.example/\"\n}\n"
	ndjson := bytes.Repeat([]byte(`{"name":"Tax Assistant","url":"https://a.example/"}`+"\n"), 30000)
	gz := func(b []byte) []byte {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		return z.Bytes()
	}
	le, be := binary.LittleEndian, binary.BigEndian
	cases := []struct {
		name  string
		data  []byte
		stdin bool
		want  string
	}{
		{"utf16le-bom", encodingtest.Encode(card, 2, le, true), false, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
		{"utf16be-bom", encodingtest.Encode(card, 2, be, true), false, "UTF-16 (big-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
		{"utf16le", encodingtest.Encode(card, 2, le, false), false, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16LE -t UTF-8"},
		{"utf16be", encodingtest.Encode(card, 2, be, false), false, "UTF-16 (big-endian) text; cardscan reads UTF-8: iconv -f UTF-16BE -t UTF-8"},
		{"utf32le-bom", encodingtest.Encode(card, 4, le, true), false, "UTF-32 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-32 -t UTF-8"},
		{"utf32be-bom", encodingtest.Encode(card, 4, be, true), false, "UTF-32 (big-endian) text; cardscan reads UTF-8: iconv -f UTF-32 -t UTF-8"},
		{"utf32le", encodingtest.Encode(card, 4, le, false), false, "UTF-32 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-32LE -t UTF-8"},
		{"utf32be", encodingtest.Encode(card, 4, be, false), false, "UTF-32 (big-endian) text; cardscan reads UTF-8: iconv -f UTF-32BE -t UTF-8"},
		{"bom-only", []byte{0xff, 0xfe}, false, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
		{"gzip", gz(encodingtest.Encode(card, 2, le, true)), false, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
		{"stdin", encodingtest.Encode(card, 2, le, true), true, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
		// Large enough to be mapped, which tells the framing apart
		// on its own.
		{"mapped", encodingtest.Encode(string(ndjson), 2, le, true), false, "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Name: "<stdin>"}
			var stdin []byte
			if tc.stdin {
				stdin = tc.data
			} else {
				in.Path = filepath.Join(dir, tc.name+".json")
				in.Name = in.Path
				if err := os.WriteFile(in.Path, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := runWith(Config{Jobs: 2}, []Input{in}, stdin, false)
			want := in.Name + ": " + tc.want
			if len(got.diags) != 1 || got.diags[0] != want {
				t.Errorf("diagnostics %q, want [%q]", got.diags, want)
			}
			if got.stats.Records != 0 || got.stats.InputErrors != 1 || got.out != "" {
				t.Errorf("%d records, %d input errors, verdicts %.200q; want 0, 1 and none", got.stats.Records, got.stats.InputErrors, got.out)
			}
		})
	}
}

// TestUTF8InputsNotTakenForOtherEncodings checks that texts whose first
// bytes are not the pattern of UTF-16 or UTF-32 are judged as before: a
// card, a UTF-8 byte order mark, NUL bytes alone and a one-byte text.
func TestUTF8InputsNotTakenForOtherEncodings(t *testing.T) {
	for _, text := range []string{
		`{"name":"x"}` + "\n",
		"\xef\xbb\xbf{\"name\":\"x\"}\n",
		"\x00\x00\x00\x00\n",
		"\x00{\x00\x00\n",
		"1",
	} {
		if err := mediatype.CheckEncoding([]byte(text)); err != nil {
			t.Errorf("%q: %v, want it read as UTF-8", text, err)
		}
		got := runWith(Config{Jobs: 1}, []Input{{Name: "<stdin>"}}, []byte(text), false)
		if got.stats.Records != 1 || len(got.diags) != 0 {
			t.Errorf("%q: %d records, diagnostics %q; want 1 record, none", text, got.stats.Records, got.diags)
		}
	}
}
