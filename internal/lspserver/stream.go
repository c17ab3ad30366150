package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cardscan/cardscan/internal/rpcmsg"
	"go.lsp.dev/jsonrpc2"
)

// readAhead is what the framing's buffered reader may read past the end
// of a message: its buffer's size, 4096 bytes, with room to spare.
const readAhead = 16 << 10

// errMessageTooLarge ends a session whose client sent a message larger
// than --max-message: the rest of that message cannot be told apart from
// the next one without reading it.
type errMessageTooLarge struct{ limit int64 }

func (e errMessageTooLarge) Error() string {
	return fmt.Sprintf("a message larger than --max-message %d bytes", e.limit)
}

// budgetReader lets the framing read at most one message's budget between
// two resets, so that neither a message nor a header that never ends can
// hold more than the budget in memory.
type budgetReader struct {
	r         io.Reader
	left      int64
	maxMesage int64
}

func (b *budgetReader) reset() { b.left = b.maxMesage + readAhead }

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errMessageTooLarge{b.maxMesage}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// tolerantStream is the LSP header framing of go.lsp.dev/jsonrpc2 with two
// additions: a message that is not JSON-RPC (not JSON, no method) gets an
// error response and the session goes on, where the connection alone
// would end it; and each message is read within a byte budget.
type tolerantStream struct {
	inner  jsonrpc2.Stream
	budget *budgetReader
}

type stdio struct {
	io.Reader
	io.Writer
}

// Close leaves standard input and output open: they are the process's.
func (stdio) Close() error { return nil }

func newStream(in io.Reader, out io.Writer, maxMessage int64) *tolerantStream {
	b := &budgetReader{r: in, maxMesage: maxMessage}
	return &tolerantStream{inner: jsonrpc2.NewHeaderStream(stdio{b, out}), budget: b}
}

// frameReader is the raw read go.lsp.dev/jsonrpc2's header framing offers
// beside Read: the body of a frame, before it is decoded.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// readMessage reads and decodes one message, refusing as an invalid
// request one that readers may take differently (rpcmsg.Ambiguous): the
// decoder keeps the last of two ids and reads a lone surrogate as
// U+FFFD, so that the answer would go to an id the client never sent.
func (s *tolerantStream) readMessage(ctx context.Context) (jsonrpc2.Message, int64, error) {
	fr, ok := s.inner.(frameReader)
	if !ok {
		return s.inner.Read(ctx)
	}
	body, n, err := fr.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	if json.Valid(body) {
		if why := rpcmsg.Ambiguous(body); why != "" {
			return nil, n, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "invalid request: "+why)
		}
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	return msg, n, err
}

func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		s.budget.reset()
		msg, n, err := s.readMessage(ctx)
		var rpcErr *jsonrpc2.Error
		if err == nil || !errors.As(err, &rpcErr) {
			return msg, n, err
		}
		// The frame was whole but its body is not a request: JSON-RPC 2.0
		// answers it with an error whose id is null, since none was read.
		if _, werr := s.inner.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, err)); werr != nil {
			return nil, 0, werr
		}
	}
}

func (s *tolerantStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

func (s *tolerantStream) Close() error { return s.inner.Close() }
