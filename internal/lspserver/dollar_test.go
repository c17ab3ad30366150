package lspserver

import (
	"errors"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// TestDollarRequestGetsMethodNotFound: the LSP specification ("$
// Notifications and Requests") lets a server ignore a notification whose
// method starts with "$/", but a request must get MethodNotFound; a null
// result tells the client the server did what it asked.
func TestDollarRequestGetsMethodNotFound(t *testing.T) {
	c := newClient(t, Config{Profile: "auto", MaxDocument: DefaultMaxDocument})
	var res any
	_, err := c.conn.Call(t.Context(), "$/progressOfSomething", map[string]any{}, &res)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		t.Fatalf("$/ request answered %v, %v; want MethodNotFound", res, err)
	}
	// A "$/" notification is still ignored, not logged as an error, and
	// the session goes on.
	c.notify("$/setTrace", map[string]any{"value": "off"})
	c.notify("$/somethingElse", map[string]any{})
	if d := c.open("file:///cards/a.json", "{}"); len(d) == 0 {
		t.Fatal("no diagnostics after the $/ messages")
	}
	select {
	case l := <-c.logs:
		t.Errorf("a $/ notification logged: %s", l)
	default:
	}
}
