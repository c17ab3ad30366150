package cardhttp

import (
	"bytes"
	"encoding/binary"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/mediatype/encodingtest"
)

// A valid card in UTF-16 is refused with a 415 naming its encoding, and
// never reaches the handler: judged as UTF-8 it was a 422 for a json.syntax
// error at its byte order mark.
func TestMiddleware_ForeignEncodingIs415(t *testing.T) {
	card := encodingtest.Encode(string(readTestdata(t, "valid.json")), 2, binary.LittleEndian, true)
	h := &recordingHandler{}
	rec := httptest.NewRecorder()
	mustMiddleware(t)(h).ServeHTTP(rec, post(bytes.NewReader(card), MediaType))
	resp := rec.Result()
	p := decodeProblem(t, resp, rec.Body.Bytes())
	if resp.StatusCode != 415 || h.called {
		t.Fatalf("status %d, handler called %v: %s", resp.StatusCode, h.called, rec.Body)
	}
	if !strings.Contains(p.Detail, "UTF-16 (little-endian)") || !strings.Contains(p.Detail, "iconv -f UTF-16 -t UTF-8") {
		t.Errorf("detail %q does not name the encoding and its conversion", p.Detail)
	}
	// The content coding is fine: offering another would mislead.
	if got := resp.Header.Get("Accept-Encoding"); got != "" {
		t.Errorf("Accept-Encoding %q on a refusal of the text's encoding", got)
	}
}

// An upstream card in UTF-16 is replaced with a 502 naming its encoding,
// not with findings of a json.syntax error at its byte order mark.
func TestModifyResponse_ForeignEncoding(t *testing.T) {
	card := encodingtest.Encode(string(readTestdata(t, "valid.json")), 2, binary.LittleEndian, true)
	front := proxyTo(t, map[string]upstreamReply{"/.well-known/agentcard": {status: 200, body: card}})
	resp, body := fetchRaw(t, front+"/.well-known/agentcard")
	if resp.StatusCode != 502 {
		t.Fatalf("status %d, want 502: %s", resp.StatusCode, body)
	}
	p := decodeProblem(t, resp, body)
	if p.Errors != nil || !strings.Contains(p.Detail, "UTF-16 (little-endian)") {
		t.Errorf("problem %+v does not name the encoding, or judged the card", p)
	}
}
