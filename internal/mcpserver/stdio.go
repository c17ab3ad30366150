package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/rpcmsg"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio connection (mcp.IOTransport) ends the session on the
// first message it cannot decode, without a word to the client: invalid
// JSON, a wrong "jsonrpc", an id that is neither a string nor a number,
// trailing whitespace, a line over its length limit (docs/mcp.md lists
// each case). JSON-RPC 2.0 (section 5) answers such a message with a parse
// error or an invalid request, and the session goes on. So the stdio
// session reads its lines here: a well-formed message goes to the SDK as
// the message jsonrpc.DecodeMessage makes of it, and any other line is
// answered here, where the SDK never sees it.

// stdioTransport is newline-delimited JSON-RPC over in and out, as
// mcp.IOTransport, but a malformed line is answered rather than fatal.
type stdioTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int // longest line read, its newline not counted
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, incoming: make(chan readResult), closed: make(chan struct{})}
	go c.readLoop(&lineReader{r: bufio.NewReaderSize(t.in, 64<<10), max: t.maxLine})
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is an mcp.Connection over newline-delimited JSON-RPC. Its
// lines are read by a goroutine of their own, so that Close unblocks a
// Read waiting on an input that cannot be interrupted (a terminal, a pipe).
type lineConn struct {
	writeMu sync.Mutex // a message is one Write, whoever writes it
	out     io.Writer

	incoming  chan readResult
	closed    chan struct{}
	closeOnce sync.Once

	// The calls passed on and not yet answered. The SDK cancels the calls
	// in flight when Read reports the end of the input, so the end is
	// held back until they are answered: a client that writes its
	// requests and closes its end gets every answer.
	pendingMu   sync.Mutex
	pending     map[jsonrpc.ID]bool
	writeFailed bool          // no answer can come any more
	drained     chan struct{} // closed when pending empties, if waited on
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r := <-c.incoming:
		return r.msg, r.err
	case <-c.closed:
		return nil, io.EOF
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err == nil {
		err = c.writeLine(b)
	}
	c.pendingMu.Lock()
	defer c.pendingMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		delete(c.pending, resp.ID)
	}
	c.writeFailed = c.writeFailed || err != nil
	if c.drained != nil && (len(c.pending) == 0 || c.writeFailed) {
		close(c.drained)
		c.drained = nil
	}
	return err
}

// passOn hands a message to Read, noting a call as pending; false when
// the connection closed first.
func (c *lineConn) passOn(msg jsonrpc.Message) bool {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.pendingMu.Lock()
		if c.pending == nil {
			c.pending = make(map[jsonrpc.ID]bool)
		}
		c.pending[req.ID] = true
		c.pendingMu.Unlock()
	}
	return c.deliver(readResult{msg: msg})
}

// awaitAnswers returns once every call passed on is answered, no answer
// can be written, or the connection closed. Each call ends within the
// server's time limit, so this does too.
func (c *lineConn) awaitAnswers() {
	c.pendingMu.Lock()
	if len(c.pending) == 0 || c.writeFailed {
		c.pendingMu.Unlock()
		return
	}
	drained := make(chan struct{})
	c.drained = drained
	c.pendingMu.Unlock()
	select {
	case <-drained:
	case <-c.closed:
	}
}

func (c *lineConn) writeLine(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// readLoop reads lines until the input ends or fails, passing each
// well-formed message to Read and answering every other line itself.
func (c *lineConn) readLoop(lr *lineReader) {
	for {
		line, tooLong, readErr := lr.next()
		var msg jsonrpc.Message
		var rej *rejection
		switch {
		case tooLong:
			rej = rejectTooLong(line, lr.n, lr.max)
		case len(bytes.Trim(line, jsonSpace)) > 0:
			msg, rej = classify(line, lr.n)
		}
		if rej != nil {
			if err := c.answer(rej); err != nil {
				c.deliver(readResult{err: err})
				return
			}
		}
		if msg != nil && !c.passOn(msg) {
			return
		}
		if readErr != nil {
			c.awaitAnswers()
			c.deliver(readResult{err: readErr})
			return
		}
	}
}

// deliver hands r to Read; false when the connection closed first.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.incoming <- r:
		return true
	case <-c.closed:
		return false
	}
}

// answer writes the error response to a rejected line.
func (c *lineConn) answer(rej *rejection) error {
	b, err := rej.encode()
	if err != nil {
		return err
	}
	return c.writeLine(b)
}

// lineReader reads lines of at most max bytes; of a longer one it keeps a
// prefix, to find the id to answer, and skips the rest as it comes.
type lineReader struct {
	r   *bufio.Reader
	max int
	n   int // number of the line last read, from 1
}

// jsonSpace is what JSON allows around a value (RFC 8259, section 2);
// other spaces, U+00A0 say, make a line that is not JSON.
const jsonSpace = " \t\r\n"

// tooLongPrefix is how much of a line over the limit is kept, at most, to
// look for its id in.
const tooLongPrefix = 64 << 10

// next returns the next line without its newline, whether it was over the
// limit (then only its first bytes, up to tooLongPrefix), and the error
// that ended the input (io.EOF at its end), with the last line if that had
// no newline.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.n++
	size, keep := 0, min(lr.max, tooLongPrefix)
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		}
		size += len(chunk)
		if size > lr.max && !tooLong {
			tooLong = true
			line = line[:min(len(line), keep)]
		}
		if tooLong {
			chunk = chunk[:min(len(chunk), max(0, keep-len(line)))]
		}
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && size == 0:
			return nil, false, err
		}
		return line, tooLong, err
	}
}

// rejection is the answer to a malformed line: a JSON-RPC error response.
type rejection struct {
	id   jsonrpc.ID // the request's, when it could be read; else null
	code int64
	msg  string
}

func (r *rejection) encode() ([]byte, error) {
	e := &jsonrpc.Error{Code: r.code, Message: r.msg}
	if r.id.IsValid() {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: r.id, Error: e})
	}
	// jsonrpc.EncodeMessage leaves out an id that is null, which JSON-RPC
	// 2.0 (section 5) requires in the answer to a message whose id could
	// not be read.
	return json.Marshal(struct {
		Version string         `json:"jsonrpc"`
		ID      *struct{}      `json:"id"` // always null
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", nil, e})
}

// A message is placed by its line of the session over stdio; over HTTP,
// where a body is one message, lineNo is bodyMessage and a place is a
// byte of the body.
const bodyMessage = 0

func parseError(lineNo, column int, what string) *rejection {
	if lineNo == bodyMessage {
		return &rejection{code: jsonrpc.CodeParseError, msg: fmt.Sprintf("parse error at byte %d of the request body: %s", column, what)}
	}
	return &rejection{code: jsonrpc.CodeParseError, msg: fmt.Sprintf("parse error at line %d, column %d: %s", lineNo, column, what)}
}

func invalidRequest(id jsonrpc.ID, lineNo int, format string, args ...any) *rejection {
	at := fmt.Sprintf(" at line %d", lineNo)
	if lineNo == bodyMessage {
		at = ""
	}
	return &rejection{id: id, code: jsonrpc.CodeInvalidRequest, msg: "invalid request" + at + ": " + fmt.Sprintf(format, args...)}
}

func rejectTooLong(prefix []byte, lineNo, limit int) *rejection {
	return invalidRequest(idInPrefix(prefix), lineNo, "longer than --max-message %s", cmdflag.FormatSize(int64(limit)))
}

// classify returns the message a line holds, or the answer to it when it
// holds none the SDK can take: one JSON object in UTF-8, with "jsonrpc"
// "2.0", an id that is a string or an integer (MCP allows no null, and the
// SDK would round one past 2^53), and a string method or else a result or
// an error. Whatever else jsonrpc.DecodeMessage refuses is refused too.
func classify(line []byte, lineNo int) (jsonrpc.Message, *rejection) {
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, parseError(lineNo, i+1, "invalid UTF-8")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, parseError(lineNo, int(syntax.Offset), syntax.Error())
		}
	}
	switch trimmed := bytes.Trim(line, jsonSpace); {
	case trimmed[0] == '[':
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, "a batch (JSON array): MCP has no batches since protocol version 2025-06-18, and this server takes none")
	case trimmed[0] != '{':
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, "not an object")
	}
	if why := rpcmsg.Ambiguous(line); why != "" {
		// encoding/json keeps the last of two members; a proxy or a client
		// may read the first, and route the answer by an id the server
		// never saw.
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, "%s", why)
	}
	id, idErr := requestID(fields["id"])
	var version string
	if v := fields["jsonrpc"]; json.Unmarshal(v, &version) != nil || version != "2.0" {
		return nil, invalidRequest(id, lineNo, `"jsonrpc" must be "2.0", got %s`, describe(v))
	}
	method, isRequest := fields["method"]
	switch {
	case idErr != "":
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, "%s", idErr)
	case isRequest && (len(method) == 0 || method[0] != '"'):
		return nil, invalidRequest(id, lineNo, `"method" must be a string, got %s`, describe(method))
	case !isRequest && fields["result"] == nil && fields["error"] == nil:
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, `neither a request ("method") nor a response ("result" or "error")`)
	case !isRequest && !id.IsValid():
		return nil, invalidRequest(jsonrpc.ID{}, lineNo, "a response needs the id of the request it answers")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if !isRequest {
			// The id is of a request of the server's own, not the client's.
			id = jsonrpc.ID{}
		}
		return nil, invalidRequest(id, lineNo, "%v", err)
	}
	return msg, nil
}

// maxExactID is the largest integer id the SDK keeps exactly: it reads
// numbers as float64.
const maxExactID = 1 << 53

// requestID reads an id member: absent (a notification), a string or an
// integer of at most 2^53 in magnitude. Anything else is an error.
func requestID(raw json.RawMessage) (jsonrpc.ID, string) {
	if raw == nil {
		return jsonrpc.ID{}, ""
	}
	var v any
	switch raw[0] {
	case 'n':
		return jsonrpc.ID{}, "id must not be null (MCP): a request has a string or an integer id, a notification none"
	case '"':
		if rpcmsg.LoneSurrogate(raw) {
			// encoding/json would read it as U+FFFD and answer an id
			// the client never sent.
			return jsonrpc.ID{}, "id must be valid Unicode: it holds an escaped lone surrogate (RFC 7493)"
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			v = s
		}
	default:
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= -maxExactID && n <= maxExactID {
			v = float64(n)
		}
	}
	if v == nil {
		return jsonrpc.ID{}, fmt.Sprintf("id must be a string or an integer of at most 2^53 in magnitude, got %s", describe(raw))
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return jsonrpc.ID{}, err.Error()
	}
	return id, ""
}

// describe names a JSON value in an error: itself when short, else its kind.
func describe(v json.RawMessage) string {
	switch {
	case v == nil:
		return "none"
	case len(v) <= 40:
		return string(v)
	case v[0] == '{':
		return "an object"
	case v[0] == '[':
		return "an array"
	case v[0] == '"':
		return "a long string"
	}
	return "a long number"
}

// idInPrefix finds the id of a line too long to read whole in its first
// bytes, where clients put it, so that the caller's request fails at once
// rather than when it times out. It returns the null id when the prefix
// has none before its first large member.
func idInPrefix(prefix []byte) jsonrpc.ID {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return jsonrpc.ID{}
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return jsonrpc.ID{}
		}
		if key == "id" {
			id, _ := requestID(value)
			return id
		}
	}
	return jsonrpc.ID{}
}
