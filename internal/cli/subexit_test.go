package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// Each subcommand that lives outside this package reaches each exit status
// it can take, with the words on stderr it has always said: the statuses
// and messages are the subcommands' promise, whichever package decides
// them.
func TestSubcommandExits(t *testing.T) {
	card := `{"name":"Ledger","description":"Summarises ledgers.","supportedInterfaces":[{"url":"https://127.0.0.1:1/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"version":"1.0.0","capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],` +
		`"skills":[{"id":"summarise","name":"Summarise","description":"Summarises ledgers.","tags":["finance"]}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/good/.well-known/agent-card.json", "/.well-known/agent-card.json":
			fmt.Fprint(w, card)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	absent := filepath.Join(dir, "absent")
	lspExit := `{"jsonrpc":"2.0","method":"exit"}`
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		code  int
		// stderr is said exactly; prefix, when stderr is "", starts it (a
		// summary with timings or a random key id follows).
		stderr, prefix string
	}{
		{"serve help", "", []string{"serve", "--help"}, exitOK, "", ""},
		{"serve bad flag", "", []string{"serve", "--bogus"}, exitUsage,
			"cardscan: error: unknown flag --bogus\ncardscan: hint: run 'cardscan serve --help' for usage\n", ""},
		{"serve operand", "", []string{"serve", "extra"}, exitUsage, "cardscan: error: serve takes no arguments, got \"extra\"\n", ""},
		{"serve profile", "", []string{"serve", "--profile", "nope"}, exitUsage, "",
			"cardscan: error: unknown profile \"nope\"\ncardscan: hint: profiles are a2a, "},
		{"serve listen", "", []string{"serve", "--listen", "256.0.0.1:1"}, exitIO, "", "cardscan: error: listen tcp: "},

		{"fetch help", "", []string{"fetch", "--help"}, exitOK, "", ""},
		{"fetch valid", "", []string{"fetch", "--allow-private", "--format", "text", srv.URL}, exitOK, "", "cardscan: 1 record: 1 valid, 0 invalid, 3 warnings; "},
		{"fetch none", "", []string{"fetch", "--allow-private", "--format", "text", srv.URL + "/none"}, exitIO, "", "cardscan: 0 records: 0 valid, 0 invalid; "},
		{"fetch warning", "", []string{"fetch", "--allow-private", "--fail-on", "warning", "--format", "text", srv.URL}, exitInvalid, "", "cardscan: 1 record: 1 valid, 0 invalid, 3 warnings; "},
		{"fetch bad flag", "", []string{"fetch", "--bogus"}, exitUsage,
			"cardscan: error: unknown flag --bogus\ncardscan: hint: run 'cardscan fetch --help' for usage\n", ""},
		{"fetch urls", "", []string{"fetch", "--urls", absent}, exitIO, "cardscan: error: --urls " + absent + ": no such file or directory\n", ""},

		{"probe help", "", []string{"probe", "--help"}, exitOK, "", ""},
		{"probe blocked", card + "\n", []string{"probe", "-"}, exitInvalid, "", "cardscan: probe: 1 interface of 1 card: 0 answering, 0 asking for credentials, 0 wrong binding, 0 TLS problems, 1 unreachable, 0 not probed; "},
		{"probe never", card + "\n", []string{"probe", "--fail-on", "never", "-"}, exitOK, "", "cardscan: probe: 1 interface of 1 card: 0 answering, 0 asking for credentials, 0 wrong binding, 0 TLS problems, 1 unreachable, 0 not probed; "},
		{"probe bad flag", "", []string{"probe", "--bogus"}, exitUsage,
			"cardscan: error: unknown flag --bogus\ncardscan: hint: run 'cardscan probe --help' for usage\n", ""},
		{"probe absent", "", []string{"probe", absent}, exitIO, "", "cardscan: error: probe: " + absent + ": no such file or directory\ncardscan: probe: 0 interfaces"},

		{"sign help", "", []string{"sign", "--help"}, exitOK, "", ""},
		{"sign key pair", "", []string{"sign", "--generate-key", "EdDSA", "-o", filepath.Join(dir, "k.json")}, exitOK, "",
			"cardscan: wrote the private key to " + filepath.Join(dir, "k.json") + " (kid "},
		{"sign no key", "", []string{"sign"}, exitUsage,
			"cardscan: error: --key is required\ncardscan: hint: run 'cardscan sign --help' for usage\n", ""},
		{"sign absent key", "", []string{"sign", "--key", absent, "card.json"}, exitIO,
			"cardscan: error: --key " + absent + ": open " + absent + ": no such file or directory\n", ""},

		{"mcp help", "", []string{"mcp", "--help"}, exitOK, "", ""},
		{"mcp closed", "", []string{"mcp"}, exitOK, "", ""},
		{"mcp bad flag", "", []string{"mcp", "--bogus"}, exitUsage,
			"cardscan: error: unknown flag --bogus\ncardscan: hint: run 'cardscan mcp --help' for usage\n", ""},
		{"mcp keys", "", []string{"mcp", "--keys", absent}, exitIO, "cardscan: error: --keys " + absent + ": no such file or directory\n", ""},

		{"lsp help", "", []string{"lsp", "--help"}, exitOK, "", ""},
		{"lsp closed", "", []string{"lsp"}, exitOK, "", ""},
		{"lsp exit without shutdown", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(lspExit), lspExit), []string{"lsp"}, exitInvalid, "", ""},
		{"lsp bad header", "Content-Length: x\r\n\r\n", []string{"lsp"}, exitIO, "cardscan: error: lsp session: a message header gives Content-Length \"x\", not a length in bytes\n", ""},
		{"lsp bad flag", "", []string{"lsp", "--bogus"}, exitUsage,
			"cardscan: error: unknown flag --bogus\ncardscan: hint: run 'cardscan lsp --help' for usage\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", r.code, tc.code, r.stderr)
			}
			if tc.prefix == "" && r.stderr != tc.stderr || tc.prefix != "" && !strings.HasPrefix(r.stderr, tc.prefix) {
				t.Errorf("stderr %q, want %q", r.stderr, tc.stderr+tc.prefix)
			}
		})
	}
}
