package serve

import (
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// encodeText writes text in UTF-16 (width 2) or UTF-32 (width 4) in the
// byte order given, after a byte order mark when bom is set.
func encodeText(text string, width int, order binary.AppendByteOrder, bom bool) []byte {
	var enc encoding.Encoding
	bomPolicy16, bomPolicy32 := unicode.IgnoreBOM, utf32.IgnoreBOM
	if bom {
		bomPolicy16, bomPolicy32 = unicode.UseBOM, utf32.UseBOM
	}
	switch big := order == binary.BigEndian; {
	case width == 4 && big:
		enc = utf32.UTF32(utf32.BigEndian, bomPolicy32)
	case width == 4:
		enc = utf32.UTF32(utf32.LittleEndian, bomPolicy32)
	case big:
		enc = unicode.UTF16(unicode.BigEndian, bomPolicy16)
	default:
		enc = unicode.UTF16(unicode.LittleEndian, bomPolicy16)
	}
	b, err := enc.NewEncoder().Bytes([]byte(text))
	if err != nil {
		panic(err) // text is the test's own valid UTF-8
	}
	return b
}

// A body in UTF-16 or UTF-32, as Windows tools write JSON, is one 415
// naming its encoding, for a card and for NDJSON alike (plain or gzip):
// read as UTF-8, an NDJSON body was a json.syntax verdict for every line,
// none of them about a card.
func TestValidate_ForeignEncodingIs415(t *testing.T) {
	srv := newTestServer(t, testConfig())
	stream := validCard + "\n" + invalidCard + "\n" + validCard + "\n"
	for _, enc := range []struct {
		name  string
		width int
		order binary.AppendByteOrder
		bom   bool
		want  string
	}{
		{"UTF-16LE BOM", 2, binary.LittleEndian, true, "UTF-16 (little-endian)"},
		{"UTF-16BE BOM", 2, binary.BigEndian, true, "UTF-16 (big-endian)"},
		{"UTF-16LE", 2, binary.LittleEndian, false, "UTF-16 (little-endian)"},
		{"UTF-16BE", 2, binary.BigEndian, false, "UTF-16 (big-endian)"},
		{"UTF-32LE BOM", 4, binary.LittleEndian, true, "UTF-32 (little-endian)"},
		{"UTF-32BE", 4, binary.BigEndian, false, "UTF-32 (big-endian)"},
	} {
		for _, body := range []struct {
			contentType, text string
			gzip              bool
		}{
			{"application/json", validCard, false},
			{"application/json", validCard, true},
			{ndjsonType, stream, false},
			{ndjsonType, stream, true},
		} {
			name := enc.name + " " + body.contentType
			if body.gzip {
				name += " gzip"
			}
			t.Run(name, func(t *testing.T) {
				text := string(encodeText(body.text, enc.width, enc.order, enc.bom))
				header := http.Header{"Content-Type": {body.contentType}}
				if body.gzip {
					text = gzipped(t, text)
					header["Content-Encoding"] = []string{"gzip"}
				}
				resp, got := postHeader(t, srv.URL+"/v1/validate", header, text)
				p := requireProblem(t, resp, got, http.StatusUnsupportedMediaType)
				if !strings.Contains(p.Detail, enc.want) || !strings.Contains(p.Detail, "UTF-8") {
					t.Errorf("detail %q does not name %s and ask for UTF-8", p.Detail, enc.want)
				}
			})
		}
	}
}
