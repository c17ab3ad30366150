package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// fuzzMaxLine is the line limit of the fuzzed transport: small, so that
// inputs reach it.
const fuzzMaxLine = 200

// syncBuffer is the fuzzed connection's output, written by its reader
// (answers) and by the test (results) at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// FuzzStdioTransport feeds the stdio transport any input, answering each
// call it passes on as the SDK would, and checks that it never panics or
// hangs and that every line that is not blank is either passed on as a
// message or answered with a JSON-RPC parse error or invalid request.
func FuzzStdioTransport(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}` + "\r\n",
		"garbage\n{}\n[]\n[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]\n",
		`{"jsonrpc":"1.0","id":5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		"\xff\xfe\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"p\xffng\"}\n\u00a0\n",
		`{"jsonrpc":"2.0","id":5,"method":"ping"}{"jsonrpc":"2.0","id":6,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","id":5,"method":"ping"` + "\n" + `"ping"` + "\n5\nnull\n",
		`{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"method":7}` + "\n" + `{"jsonrpc":"2.0","id":5}` + "\n" + `{"jsonrpc":"2.0","result":{}}` + "\n" + `{"jsonrpc":"2.0","id":5,"error":"x"}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":` + strings.Repeat("[", 90) + strings.Repeat("]", 90) + `}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"card":"` + strings.Repeat("x", 300) + `"}}` + "\n",
		`{"jsonrpc":"2.0","method":"tools/call","params":{"card":"` + strings.Repeat("x", 300) + `"},"id":8}`,
		"\n \t\r\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var out syncBuffer
		transport := &stdioTransport{in: bytes.NewReader(input), out: &out, maxLine: fuzzMaxLine}
		conn, err := transport.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		passed := 0
		for {
			msg, err := conn.Read(context.Background())
			if err != nil {
				break
			}
			passed++
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("a message passed on does not encode: %v", err)
			}
			req, ok := msg.(*jsonrpc.Request)
			if !ok || !req.IsCall() {
				continue
			}
			switch id := req.ID.Raw().(type) {
			case string:
			case int64:
				if id > maxExactID || id < -maxExactID {
					t.Fatalf("a call passed on with id %d, which the SDK cannot keep", id)
				}
			default:
				t.Fatalf("a call passed on with id %#v", id)
			}
			// The answer the SDK would write; the end of the input waits
			// for it.
			if err := conn.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
		}
		answered := 0
		for _, line := range bytes.Split(bytes.TrimSuffix(out.b.Bytes(), []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("the transport wrote %q, not JSON: %v", line, err)
			}
			if string(m["result"]) == `{}` {
				continue // a result the test wrote
			}
			var e jsonrpc.Error
			_, hasID := m["id"]
			if string(m["jsonrpc"]) != `"2.0"` || !hasID || json.Unmarshal(m["error"], &e) != nil ||
				(e.Code != jsonrpc.CodeParseError && e.Code != jsonrpc.CodeInvalidRequest) || e.Message == "" {
				t.Fatalf("the transport wrote %s, not a JSON-RPC error response", line)
			}
			answered++
		}
		lines := 0
		for _, line := range bytes.Split(input, []byte("\n")) {
			if len(line) > fuzzMaxLine || len(bytes.Trim(line, jsonSpace)) > 0 {
				lines++
			}
		}
		if passed+answered != lines {
			t.Fatalf("%d lines that are not blank; %d passed on and %d answered", lines, passed, answered)
		}
	})
}
