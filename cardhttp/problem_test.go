package cardhttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// TestAppendProblem_FindingsAsJSONL requires a problem document to list
// findings in the bytes a cardscan --format jsonl record does, text that
// needs escaping included: DEL and U+2028 quoted from a card are escaped
// in both, so that neither output carries a raw control character or
// JavaScript line terminator.
func TestAppendProblem_FindingsAsJSONL(t *testing.T) {
	for _, tc := range []struct {
		name string
		card []byte
	}{
		{"testdata/invalid.json", readTestdata(t, "invalid.json")},
		{"DEL and U+2028", []byte("{\"agent_id\":\"nope\",\"name\":\"n\",\"version\":\"1.0\u2028\x7f\",\"capabilities\":[{\"id\":\"Bad\u2029ID\"}],\"endpoint\":{\"protocol\":\"http\",\"url\":\"http://example.com/\"}}")},
		{"not JSON", []byte("{\"a\":\x7f}")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := fastvalidate.MustNew("agentcard").Validate(tc.card)
			if res.Valid() {
				t.Fatal("the card is valid; the test proves nothing")
			}
			rej := Rejection{Status: http.StatusUnprocessableEntity, Result: res, card: tc.card}
			problem := rej.AppendProblem(nil)
			if !json.Valid(problem) {
				t.Fatalf("problem is not JSON: %s", problem)
			}
			vd := report.FromResult("<request>", 1, 1, 0, tc.card, res)
			var enc report.Encoder
			record := enc.AppendJSONL(nil, &vd)

			// From "profile" to the end of "warnings", in both.
			from := []byte(`,"profile":`)
			got := problem[bytes.Index(problem, from) : len(problem)-len("}")]
			want := record[bytes.Index(record, from) : len(record)-len("}\n")]
			if !bytes.Equal(got, want) {
				t.Errorf("problem lists\n%s\nthe JSONL record\n%s", got, want)
			}
			if bytes.ContainsAny(problem, "\x7f\u2028\u2029") {
				t.Errorf("raw DEL or line separator in %q", problem)
			}
		})
	}
}

// Rejection.Profile is documented as the profile that judged the card:
// under "auto" that is the dialect the card was judged as, which a
// WithRejectFunc reads from it as the default problem does.
func TestRejection_ProfileNamesTheJudge(t *testing.T) {
	var got, want string
	reject := func(w http.ResponseWriter, r *http.Request, rej *Rejection) {
		got, want = rej.Profile, rej.Result.Profile
		w.WriteHeader(rej.Status)
	}
	invalid := strings.Replace(string(readTestdata(t, "valid.json")), `"version"`, `"verzion"`, 1)
	rec := httptest.NewRecorder()
	mustMiddleware(t, WithRejectFunc(reject))(&recordingHandler{}).ServeHTTP(rec, post(strings.NewReader(invalid), MediaType))
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", rec.Code)
	}
	if want == "" || got != want {
		t.Errorf("Rejection.Profile %q, want the Result's %q", got, want)
	}
}

// A problem's title is the status's name in RFC 9110, section 15, which
// renamed 413 and 422 from RFC 7231's "Request Entity Too Large" and
// "Unprocessable Entity"; a 413 without its cap names the status the same
// way in its detail too.
func TestAppendProblem_TitleIsRFC9110Name(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
	}{
		{http.StatusRequestEntityTooLarge, "Content Too Large"},
		{http.StatusUnprocessableEntity, "Unprocessable Content"},
		{http.StatusUnsupportedMediaType, "Unsupported Media Type"},
		{http.StatusBadGateway, "Bad Gateway"},
	} {
		rej := Rejection{Status: tc.status}
		var p struct{ Title, Detail string }
		if err := json.Unmarshal(rej.AppendProblem(nil), &p); err != nil {
			t.Fatal(err)
		}
		if p.Title != tc.want {
			t.Errorf("status %d: title %q, want %q", tc.status, p.Title, tc.want)
		}
	}
	rej := Rejection{Status: http.StatusUnprocessableEntity}
	if got := string(rej.appendDetail(nil)); got != "Unprocessable Content" {
		t.Errorf("422 detail without a cause %q, want RFC 9110's name", got)
	}
}
