package serve

import (
	"encoding/binary"
	"net/http"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/mediatype/encodingtest"
)

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
				text := string(encodingtest.Encode(body.text, enc.width, enc.order, enc.bom))
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
