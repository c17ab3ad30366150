package agreement

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cli"
	"github.com/cardscan/cardscan/internal/lspserver"
	"github.com/cardscan/cardscan/internal/mcpserver"
)

// FuzzSurfacesAgree holds the CLI (jsonl and text, on standard input),
// serve, cardhttp, validate_card and the language server to the library
// on arbitrary bytes, seeded with the hostile shapes and the golden cards.
func FuzzSurfacesAgree(f *testing.F) {
	for _, c := range hostileCards() {
		f.Add(c.text)
	}
	for _, c := range goldenCards(f) {
		f.Add(c.text)
	}
	v, err := fastvalidate.New("auto")
	if err != nil {
		f.Fatal(err)
	}
	handler := serveHandler(f, "--profile", "auto")
	mw, err := cardhttp.Middleware(cardhttp.WithProfile("auto"))
	if err != nil {
		f.Fatal(err)
	}
	mcpc := mcpSession(f, mcpserver.Config{})
	lsp := newLSPClient(f, lspserver.Config{MaxDocument: 16 << 20})
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 1<<16 {
			return
		}
		lsp.t = t
		ref := judge(v, text)
		want := ref.expect(text, raw, lineColumn)
		d := &disagreements{t: t}

		var stdout, stderr bytes.Buffer
		cli.Run([]string{"--all", "--fail-on", "never", "--format", "jsonl", "--stdin-filename", "card.json", "-"}, bytes.NewReader(text), &stdout, &stderr)
		if got, records, _ := parseJSONL(t, stdout.Bytes()); records["card.json"] == 1 && !framedAsArray(text) {
			d.check("jsonl", "the input", got["card.json"], want)
		}
		d.check("serve", "the input", served(t, handler, text), want)
		httpWant := want
		if ref.valid {
			httpWant = verdict{valid: true}
		}
		if got := guarded(t, mw, text); !strings.HasPrefix(got.profile, "HTTP 415") {
			// 415 is a body in UTF-16 or UTF-32, which cardhttp refuses
			// as serve does.
			d.check("cardhttp", "the input", got, httpWant)
		}
		if !utf8.Valid(text) {
			return
		}
		d.check("mcp validate_card", "the input", validateCard(t, mcpc, text, judgement{profile: "auto"}), want)
		lspWant := ref.expect(text, lspRender, func(text []byte, off int) (int, int) {
			line, char := lspPosition(text, off)
			return line + 1, char + 1
		})
		d.check("lsp", "the input", lsp.diagnose("card.json", text), withoutProfile(lspWant))
	})
}
