package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/mcpserver"
)

// rawSession is `cardscan mcp` on pipes, driven a line at a time as a
// client that is not the SDK's would drive it.
type rawSession struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	lines  chan string
	ended  chan struct{} // closed when Run returns
	status int           // Run's exit status, once ended is closed
	stderr *bytes.Buffer
}

func startRaw(t *testing.T, args ...string) *rawSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &rawSession{t: t, in: inW, out: bufio.NewReader(outR), lines: make(chan string), ended: make(chan struct{}), stderr: &bytes.Buffer{}}
	go func() {
		s.status = cmderr.Exit(mcpserver.Run(append([]string{}, args...), inR, outW, s.stderr), console.New(s.stderr))
		outW.Close()
		inR.Close() // a write to a session that ended fails, not blocks
		close(s.ended)
	}()
	go func() {
		defer close(s.lines)
		for {
			line, err := s.out.ReadString('\n')
			if err != nil {
				return
			}
			s.lines <- line
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-s.ended:
		case <-time.After(5 * time.Second):
			t.Error("the session did not end when its input closed")
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")
	if m := s.next(); m == nil || m["id"] != "init" || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return s
}

func (s *rawSession) send(text string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, text); err != nil {
		s.t.Fatalf("writing to the session: %v (stderr %q)", err, s.stderr.String())
	}
}

// next returns the next message the server writes, nil when the session
// ends or says nothing for five seconds.
func (s *rawSession) next() map[string]any {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Errorf("the session ended (stderr %q)", s.stderr.String())
			return nil
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Errorf("the server wrote %q, not a JSON-RPC message: %v", line, err)
		}
		return m
	case <-time.After(5 * time.Second):
		s.t.Error("no message from the server within 5s")
		return nil
	}
}

// wantError checks that m answers a malformed line: a JSON-RPC 2.0 error
// response with code and id (nil for null; the member must be present).
func wantError(t *testing.T, m map[string]any, code int, id any, msg string) {
	t.Helper()
	if m == nil {
		return
	}
	e, _ := m["error"].(map[string]any)
	gotID, hasID := m["id"]
	if m["jsonrpc"] != "2.0" || e == nil || e["code"] != float64(code) || !hasID || gotID != id || m["result"] != nil {
		t.Errorf("answer %v; want an error with code %d and id %v", m, code, id)
		return
	}
	if got, _ := e["message"].(string); !strings.Contains(got, msg) {
		t.Errorf("error message %q; want it to hold %q", got, msg)
	}
}

func wantPong(t *testing.T, m map[string]any, id float64) {
	t.Helper()
	if m != nil && (m["id"] != id || m["result"] == nil || m["error"] != nil) {
		t.Errorf("answer %v; want the result of ping %v", m, id)
	}
}

// TestMalformedLines sends each kind of malformed line, then a ping: the
// line gets a JSON-RPC error (parse error -32700, invalid request -32600)
// and the session answers the ping, as JSON-RPC 2.0 (section 5) has it.
func TestMalformedLines(t *testing.T) {
	const (
		parseError     = -32700
		invalidRequest = -32600
	)
	deep := strings.Repeat("[", 1100) + strings.Repeat("]", 1100)
	for _, tc := range []struct {
		name, line string
		code       int
		id         any // of the answer; nil for null
		msg        string
	}{
		{"garbage", "garbage", parseError, nil, "line 3, column 1: invalid character 'g'"},
		{"empty object", `{}`, invalidRequest, nil, `"jsonrpc" must be "2.0"`},
		{"empty array", `[]`, invalidRequest, nil, "batch"},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, invalidRequest, nil, "batch"},
		{"version 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, invalidRequest, float64(5), `"jsonrpc" must be "2.0"`},
		{"version missing", `{"id":"a","method":"ping"}`, invalidRequest, "a", `"jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, invalidRequest, nil, "id must be a string or an integer"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, invalidRequest, nil, "id must be a string or an integer"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, invalidRequest, nil, "id must not be null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, invalidRequest, nil, "id must be a string or an integer"},
		{"id with a lone surrogate", `{"jsonrpc":"2.0","id":"a\ud800","method":"ping"}`, invalidRequest, nil, "lone surrogate"},
		{"id with a lone low surrogate", `{"jsonrpc":"2.0","id":"\udc00\ud800","method":"ping"}`, invalidRequest, nil, "lone surrogate"},
		{"id given twice", `{"jsonrpc":"2.0","id":2,"method":"ping","id":3}`, invalidRequest, nil, `member "id" given twice`},
		{"method given twice", `{"jsonrpc":"2.0","id":2,"method":"tools/call","method":"ping"}`, invalidRequest, nil, `member "method" given twice`},
		{"id beyond 2^53", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, invalidRequest, nil, "id must be a string or an integer"},
		{"no-break space", "\u00a0", parseError, nil, "line 3, column 1: invalid character"},
		{"bad UTF-8", "\xff\xfe", parseError, nil, "line 3, column 1: invalid UTF-8"},
		{"bad UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"p\xffng\"}", parseError, nil, "column 36: invalid UTF-8"},
		{"two objects", `{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}`, parseError, nil, "column 41: invalid character '{' after top-level value"},
		{"truncated", `{"jsonrpc":"2.0","id":5,"method":"ping"`, parseError, nil, "line 3"},
		{"string", `"ping"`, invalidRequest, nil, "not an object"},
		{"number", `5`, invalidRequest, nil, "not an object"},
		{"null", `null`, invalidRequest, nil, "not an object"},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":7}`, invalidRequest, float64(5), `"method" must be a string`},
		{"neither request nor response", `{"jsonrpc":"2.0","id":5}`, invalidRequest, nil, `neither a request ("method") nor a response`},
		{"response without id", `{"jsonrpc":"2.0","result":{}}`, invalidRequest, nil, "a response needs the id"},
		{"response with a bad error", `{"jsonrpc":"2.0","id":5,"error":"x"}`, invalidRequest, nil, "invalid request at line 3"},
		{"too deep", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + deep + `}}`, invalidRequest, float64(5), "depth"},
		{"too long", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"card":"` + strings.Repeat("x", 5000) + `"}}`, invalidRequest, float64(5), "longer than --max-message 4KiB"},
		{"too long, id late", `{"jsonrpc":"2.0","method":"tools/call","params":{"card":"` + strings.Repeat("x", 5000) + `"},"id":5}`, invalidRequest, nil, "longer than --max-message 4KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startRaw(t, "--max-message", "4KiB")
			s.send(tc.line + "\n" + `{"jsonrpc":"2.0","id":99,"method":"ping"}` + "\n")
			wantError(t, s.next(), tc.code, tc.id, tc.msg)
			wantPong(t, s.next(), 99)
		})
	}
}

// TestWellFormedLines: what JSON allows around a message is no error.
func TestWellFormedLines(t *testing.T) {
	s := startRaw(t)
	s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}  \t\n")
	wantPong(t, s.next(), 1)
	s.send("\n  \n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n")
	wantPong(t, s.next(), 2)
	s.send(" {\"method\":\"ping\",\"jsonrpc\":\"2.0\",\"id\":3} \n")
	wantPong(t, s.next(), 3)
	// A surrogate pair, escaped, and escaped backslashes before a "u"
	// are no lone surrogate; the same name in params is no second id.
	s.send(`{"jsonrpc":"2.0","id":"\ud83d\ude00\\ud800","method":"ping","params":{"id":1}}` + "\n")
	if m := s.next(); m == nil || m["id"] != "\U0001F600\\ud800" || m["result"] == nil {
		t.Errorf("an id with a surrogate pair: %v", m)
	}
	// A request past a long run of malformed lines is still answered.
	// Sent while the answers are read, as the pipes hold little.
	go func() {
		for i := range 200 {
			if _, err := fmt.Fprintf(s.in, "{\"jsonrpc\":\"2.0\",\"id\":%d}\n", i); err != nil {
				return
			}
		}
	}()
	for range 200 {
		if wantError(t, s.next(), -32600, nil, "neither a request"); t.Failed() {
			break
		}
	}
	s.send(`{"jsonrpc":"2.0","id":"last","method":"ping"}`)
	s.in.Close() // a last line without its newline is read, and answered
	if m := s.next(); m == nil || m["id"] != "last" || m["result"] == nil {
		t.Errorf("the last line, without a newline: %v", m)
	}
	select {
	case <-s.ended:
		if s.status != 0 {
			t.Errorf("exit status %d at the end of input; want 0 (stderr %q)", s.status, s.stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Error("the session did not end with its input")
	}
}

// TestAnswersBeforeEOF: a client that writes its requests and closes its
// end at once gets every answer before the session ends.
func TestAnswersBeforeEOF(t *testing.T) {
	inR, inW := io.Pipe()
	var out, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- cmderr.Exit(mcpserver.Run(nil, inR, &out, &stderr), console.New(&stderr)) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"explain_rule","arguments":{"rule":"a2a.mime"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"validate_card","arguments":{"card":{}}}}
{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	inW.Close()
	select {
	case st := <-done:
		if st != 0 {
			t.Errorf("exit status %d; want 0 (stderr %q)", st, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end with its input")
	}
	written := out.String()
	answered := map[float64]bool{}
	dec := json.NewDecoder(strings.NewReader(written))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("output %q: %v", written, err)
		}
		if id, ok := m["id"].(float64); ok && m["result"] != nil {
			answered[id] = true
		}
	}
	for id := range 5 {
		if !answered[float64(id+1)] {
			t.Errorf("request %d has no answer in %q", id+1, written)
		}
	}
}
