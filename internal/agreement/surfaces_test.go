package agreement

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/jsonrpc2"

	"github.com/cardscan/cardscan/cardhttp"
	"github.com/cardscan/cardscan/internal/cli"
	"github.com/cardscan/cardscan/internal/lspserver"
	"github.com/cardscan/cardscan/internal/mcpserver"
	"github.com/cardscan/cardscan/internal/serve"
)

// cliRun is one run of the CLI over dir with every format at once: each
// output's text by format name, and --summary's as "summary".
func cliRun(t *testing.T, dir string, extra ...string) map[string][]byte {
	t.Helper()
	out := t.TempDir()
	formats := []string{"text", "github", "sarif", "junit", "codequality"}
	args := append([]string{"--all", "--fail-on", "never", "--format", "jsonl", "--summary", filepath.Join(out, "summary")}, extra...)
	for _, f := range formats {
		args = append(args, "--format", f+"="+filepath.Join(out, f))
	}
	args = append(args, dir)
	var stdout, stderr bytes.Buffer
	if status := cli.Run(args, strings.NewReader(""), &stdout, &stderr); status != 0 {
		t.Fatalf("cardscan %s: status %d\n%s", strings.Join(args, " "), status, stderr.Bytes())
	}
	got := map[string][]byte{"jsonl": stdout.Bytes()}
	for _, f := range append(formats, "summary") {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		got[f] = b
	}
	return got
}

// jsonFinding is a finding of a jsonl record, a served verdict, a problem
// document or validate_card's structured content.
type jsonFinding struct {
	Rule, Path, Message string
	Line, Column        int
}

// times is how many findings f stands for: a fault the card repeats with
// the same value is listed once, its message saying how often.
func (f *jsonFinding) times() int {
	if m := repeated.FindStringSubmatch(f.Message); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

var repeated = regexp.MustCompile(`; (\d+) times in the card, the first here$`)

type jsonVerdict struct {
	ErrorsUnlisted   int `json:"errors_unlisted"`
	WarningsUnlisted int `json:"warnings_unlisted"`
	Input            string
	Line             int
	Valid            bool
	Profile          string
	Errors           []jsonFinding
	Warnings         []jsonFinding
}

func (v *jsonVerdict) verdict() verdict {
	out := verdict{valid: v.Valid, profile: v.Profile}
	for sev, fs := range map[string][]jsonFinding{"error": v.Errors, "warning": v.Warnings} {
		for _, f := range fs {
			out.findings = append(out.findings, finding{f.Rule, sev, raw(f.Path, f.Message), f.Line, f.Column})
		}
	}
	sortFindings(out.findings)
	return out
}

// parseJSONL reads the CLI's jsonl records, by input's base name, counts
// each input's records and totals them as --summary does.
func parseJSONL(t *testing.T, b []byte) (map[string]verdict, map[string]int, summaryCounts) {
	t.Helper()
	got, records := map[string]verdict{}, map[string]int{}
	total := summaryCounts{Rules: map[string]int{}}
	for line := range bytes.Lines(b) {
		var v jsonVerdict
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("jsonl: %v: %s", err, line)
		}
		got[path.Base(v.Input)] = v.verdict()
		records[path.Base(v.Input)]++
		total.Records++
		if v.Valid {
			total.Valid++
		} else {
			total.Invalid++
		}
		for _, f := range v.Errors {
			total.Errors += f.times()
			total.Rules[f.Rule] += f.times()
		}
		for _, f := range v.Warnings {
			total.Warnings += f.times()
			total.Rules[f.Rule] += f.times()
		}
		total.Errors += v.ErrorsUnlisted
		total.Warnings += v.WarningsUnlisted
	}
	return got, records, total
}

// textLine is INPUT:LINE:COLUMN: then an ok, note, error or warning line.
var textLine = regexp.MustCompile(`^([^:]*):(\d+):(\d+): (ok|note|error|warning): (.*)$`)

// parseText reads text lines (the text format's, or a JUnit failure's),
// by input's base name: a card with an ok line is valid, one with an
// error line invalid.
func parseText(t *testing.T, b []byte) map[string]verdict {
	t.Helper()
	got := map[string]verdict{}
	for line := range strings.Lines(string(b)) {
		m := textLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			t.Fatalf("text: not a finding line: %q", line)
		}
		name := path.Base(m[1])
		v := got[name]
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		switch m[4] {
		case "ok":
			v.valid = true
			v.profile, _, _ = strings.Cut(m[5], " ")
		case "error", "warning":
			rule, shown, _ := strings.Cut(m[5], ": ")
			v.findings = append(v.findings, finding{rule, m[4], shown, ln, col})
		}
		got[name] = v
	}
	for name, v := range got {
		sortFindings(v.findings)
		got[name] = v
	}
	return got
}

var githubLine = regexp.MustCompile(`^::(error|warning|notice) file=([^,]*),line=(\d+),col=(\d+)(?:,title=([^:]*))?::(.*)$`)

// parseGitHub reads workflow commands, by input's base name.
func parseGitHub(t *testing.T, b []byte) map[string]verdict {
	t.Helper()
	got := map[string]verdict{}
	for line := range strings.Lines(string(b)) {
		m := githubLine.FindStringSubmatch(strings.TrimSuffix(line, "\n"))
		if m == nil {
			t.Fatalf("github: not a workflow command: %q", line)
		}
		if m[1] == "notice" {
			continue
		}
		name := path.Base(m[2])
		ln, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		v := got[name]
		v.findings = append(v.findings, finding{m[5], m[1], m[6], ln, col})
		got[name] = v
	}
	for name, v := range got {
		sortFindings(v.findings)
		got[name] = v
	}
	return got
}

// parseSARIF reads a SARIF log's results, by artifact's base name.
func parseSARIF(t *testing.T, b []byte) map[string]verdict {
	t.Helper()
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
				Properties struct{ Pointer string }
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("sarif: %v", err)
	}
	got := map[string]verdict{}
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		name := path.Base(loc.ArtifactLocation.URI)
		v := got[name]
		v.findings = append(v.findings, finding{r.RuleID, r.Level, r.Message.Text, loc.Region.StartLine, loc.Region.StartColumn})
		got[name] = v
	}
	for name, v := range got {
		sortFindings(v.findings)
		got[name] = v
	}
	return got
}

// parseCodeQuality reads a Code Quality report, by path's base name; it
// has lines, not columns, so every column is 0.
func parseCodeQuality(t *testing.T, b []byte) map[string]verdict {
	t.Helper()
	var issues []struct {
		Description string
		CheckName   string `json:"check_name"`
		Severity    string
		Location    struct {
			Path  string
			Lines struct{ Begin int }
		}
	}
	if err := json.Unmarshal(b, &issues); err != nil {
		t.Fatalf("codequality: %v", err)
	}
	sev := map[string]string{"major": "error", "minor": "warning"}
	got := map[string]verdict{}
	for _, is := range issues {
		name := path.Base(is.Location.Path)
		v := got[name]
		v.findings = append(v.findings, finding{is.CheckName, sev[is.Severity], is.Description, is.Location.Lines.Begin, 0})
		got[name] = v
	}
	for name, v := range got {
		sortFindings(v.findings)
		got[name] = v
	}
	return got
}

// parseJUnit reads a JUnit report's test cases, by class name's base name:
// a failure's text lines as parseText reads them, a test case without one
// valid.
func parseJUnit(t *testing.T, b []byte) map[string]verdict {
	t.Helper()
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name      string `xml:"name,attr"`
				ClassName string `xml:"classname,attr"`
				Failure   *struct {
					Type string `xml:"type,attr"`
					Text string `xml:",chardata"`
				} `xml:"failure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("junit: %v", err)
	}
	got := map[string]verdict{}
	for _, c := range doc.Suites[0].Cases {
		name := path.Base(c.ClassName)
		text := c.SystemOut
		if c.Failure != nil {
			text = c.Failure.Text
		}
		v := parseText(t, []byte(text))[name]
		v.valid = c.Failure == nil
		got[name] = v
	}
	return got
}

// served posts the card to cardscan serve's handler and reads its verdict.
func served(t *testing.T, h http.Handler, text []byte) verdict {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/validate", bytes.NewReader(text))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return verdict{profile: "HTTP " + strconv.Itoa(rec.Code) + ": " + rec.Body.String()}
	}
	var v jsonVerdict
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("serve: %v: %s", err, rec.Body.Bytes())
	}
	return v.verdict()
}

// guarded passes the card through cardhttp's middleware: a valid card
// reaches the handler behind it, whose 204 carries no findings; an
// invalid one is a 422 problem with its findings.
func guarded(t *testing.T, mw func(http.Handler) http.Handler, text []byte) verdict {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/agents", bytes.NewReader(text))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	mw(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })).ServeHTTP(rec, req)
	switch rec.Code {
	case http.StatusNoContent:
		return verdict{valid: true}
	case http.StatusUnprocessableEntity:
		var v jsonVerdict
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("cardhttp: %v: %s", err, rec.Body.Bytes())
		}
		return v.verdict()
	}
	return verdict{profile: "HTTP " + strconv.Itoa(rec.Code) + ": " + rec.Body.String()}
}

// mcpSession is a client of cardscan mcp's server, in memory.
func mcpSession(t testing.TB, cfg mcpserver.Config) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(cfg).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agreement", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// callTool calls a tool and decodes its structured content into out; a
// tool error fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		b, _ := json.Marshal(res.Content)
		t.Fatalf("%s: tool error: %s", name, b)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			// The text a model reads quotes card text, escaped.
			checkNothingHidden(t, name+"'s text", tc.Text)
		}
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v: %s", name, err, b)
	}
}

// validateCard is validate_card on the card's text, judged as j says.
func validateCard(t *testing.T, cs *mcp.ClientSession, text []byte, j judgement) verdict {
	t.Helper()
	args := map[string]any{"card": string(text), "profile": j.profile}
	if j.policy != "" {
		args["policy"] = j.policy
	}
	var v jsonVerdict
	callTool(t, cs, "validate_card", args, &v)
	return v.verdict()
}

// lspClient is an editor's end of a cardscan lsp session, in memory.
type lspClient struct {
	t     testing.TB
	conn  jsonrpc2.Conn
	diags chan lspDiagnostics
	// dir is the directory the documents' URIs name.
	dir string
}

type lspDiagnostics struct {
	URI         string
	Diagnostics []struct {
		Range struct {
			Start struct{ Line, Character int }
		}
		Severity int
		Code     string
		Message  string
	}
}

type pipeRW struct {
	io.Reader
	io.WriteCloser
}

func newLSPClient(t testing.TB, cfg lspserver.Config) *lspClient {
	return newLSPClientEncoding(t, cfg, "")
}

// newLSPClientEncoding starts a session whose client prefers the position
// encoding enc ("utf-8", "utf-16" or "utf-32"; "" lists none, which means
// UTF-16).
func newLSPClientEncoding(t testing.TB, cfg lspserver.Config, enc string) *lspClient {
	t.Helper()
	return startLSP(t, enc, func(ctx context.Context, in io.Reader, out io.Writer) {
		_ = lspserver.Serve(ctx, cfg, in, out, 64<<20)
	})
}

// newLSPCommand is a session with `cardscan lsp ARGS`, run by the CLI as
// an editor would start it (policy files found as the CLI finds them),
// its documents in dir.
func newLSPCommand(t testing.TB, dir string, args ...string) *lspClient {
	t.Helper()
	c := startLSP(t, "", func(_ context.Context, in io.Reader, out io.Writer) {
		cli.Run(append([]string{"lsp"}, args...), in, out, io.Discard)
	})
	c.dir = dir
	return c
}

// startLSP serves a session with serve over pipes and initializes it,
// the client preferring the position encoding enc ("" for none).
func startLSP(t testing.TB, enc string, serve func(ctx context.Context, in io.Reader, out io.Writer)) *lspClient {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	c := &lspClient{t: t, diags: make(chan lspDiagnostics, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(ctx, toServer, fromServer)
		fromServer.Close()
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(pipeRW{toClient, fromClient}))
	c.conn.Go(ctx, func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		if req.Method() == "textDocument/publishDiagnostics" {
			var p lspDiagnostics
			if err := json.Unmarshal(req.Params(), &p); err != nil {
				t.Errorf("publishDiagnostics: %v", err)
			}
			c.diags <- p
		}
		return nil, nil
	})
	t.Cleanup(func() {
		fromClient.Close()
		cancel()
		<-done
	})
	caps := map[string]any{}
	if enc != "" {
		caps["general"] = map[string]any{"positionEncodings": []string{enc}}
	}
	var init struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	c.call("initialize", map[string]any{"capabilities": caps}, &init)
	if enc != "" && init.Capabilities.PositionEncoding != enc {
		t.Fatalf("initialize: position encoding %q, want %q", init.Capabilities.PositionEncoding, enc)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func (c *lspClient) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *lspClient) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// diagnose opens the card, reads its diagnostics and closes it again.
// Positions stay the language server's own: 0-based lines and UTF-16
// characters, +1 each, to be compared with lspPosition's.
func (c *lspClient) diagnose(name string, text []byte) verdict {
	c.t.Helper()
	uri := "file://" + path.Join(cmp.Or(c.dir, "/cards"), name)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "json", "version": 1, "text": string(text)}})
	var p lspDiagnostics
	select {
	case p = <-c.diags:
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s: no diagnostics within 10s", name)
	}
	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	select {
	case <-c.diags: // a closed document's diagnostics are cleared
	case <-time.After(10 * time.Second):
		c.t.Fatalf("%s: diagnostics not cleared within 10s", name)
	}
	v := verdict{valid: true}
	for _, d := range p.Diagnostics {
		checkNothingHidden(c.t, "a diagnostic of "+name, d.Message)
		sev := "error"
		if d.Severity == 2 {
			sev = "warning"
		} else {
			v.valid = false
		}
		v.findings = append(v.findings, finding{d.Code, sev, d.Message, d.Range.Start.Line + 1, d.Range.Start.Character + 1})
	}
	sortFindings(v.findings)
	return v
}

// serveHandler is cardscan serve's handler, with args as its flags.
func serveHandler(t testing.TB, args ...string) http.Handler {
	t.Helper()
	h, err := serve.NewHandler(args)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// middleware is cardhttp's, with opts.
func middleware(t *testing.T, opts ...cardhttp.Option) func(http.Handler) http.Handler {
	t.Helper()
	mw, err := cardhttp.Middleware(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return mw
}

// parseInto decodes one JSON document into v.
func parseInto(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
