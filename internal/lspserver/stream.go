package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/rpcmsg"
	"go.lsp.dev/jsonrpc2"
)

// headerBuffer is the header reader's buffer, and so the longest header
// line; maxHeader bounds a header block. An LSP header block is two short
// fields (Content-Length, Content-Type).
const (
	headerBuffer = 4 << 10
	maxHeader    = 16 << 10
)

// readAhead is what a message's budget allows beside its body: its header
// block, and what the reader's buffer may read past the message's end
// (and held over from the one before).
const readAhead = maxHeader + 2*headerBuffer

// errMessageTooLarge ends a session whose client sent, or declared, a
// message larger than --max-message: the rest of that message cannot be
// told apart from the next one without reading it.
type errMessageTooLarge struct {
	limit    int64
	declared string // the Content-Length, when it declared too much
}

func (e errMessageTooLarge) Error() string {
	if e.declared != "" {
		// At most 40 digits: a header line may hold thousands.
		return fmt.Sprintf("a message of %.40s bytes (Content-Length) is larger than --max-message %s", e.declared, cmdflag.FormatSize(e.limit))
	}
	return fmt.Sprintf("a message larger than --max-message %s", cmdflag.FormatSize(e.limit))
}

// errHeader is a header block that cannot be read: the session ends,
// since where the message ends is not known.
type errHeader struct{ why string }

func (e errHeader) Error() string { return "a message header " + e.why }

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
		return 0, errMessageTooLarge{limit: b.maxMesage}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// tolerantStream reads the LSP base protocol's messages itself and writes
// them through go.lsp.dev/jsonrpc2's header framing, with three additions:
// a declared Content-Length over --max-message is refused before a byte
// of the body is read or a buffer reserved for it (the library reserves
// what a header declares, up to 1 GiB, and has no option to lower that);
// a message that is not JSON-RPC (not JSON, no method) gets an error
// response and the session goes on, where the connection alone would end
// it; and each message is read within a byte budget.
type tolerantStream struct {
	inner      jsonrpc2.Stream // writes
	in         *bufio.Reader
	budget     *budgetReader
	maxMessage int64
	body       []byte
}

type stdio struct {
	io.Reader
	io.Writer
}

// Close leaves standard input and output open: they are the process's.
func (stdio) Close() error { return nil }

func newStream(in io.Reader, out io.Writer, maxMessage int64) *tolerantStream {
	b := &budgetReader{r: in, maxMesage: maxMessage}
	// The library's stream only writes: it is given no input to read.
	return &tolerantStream{inner: jsonrpc2.NewHeaderStream(stdio{strings.NewReader(""), out}), budget: b,
		in: bufio.NewReaderSize(b, headerBuffer), maxMessage: maxMessage}
}

// readHeader reads a header block and returns the length its
// Content-Length declares and the block's size. As the library reads
// them: fields are "Name: value" lines ending in CRLF or LF, names are
// matched without regard to case, other fields are ignored, and an empty
// line ends the block. A Content-Length given twice is refused, as HTTP
// refuses differing ones (RFC 9112, section 6.3): readers keeping the
// first or the last would frame the stream differently.
func (s *tolerantStream) readHeader() (int64, int, error) {
	var length string
	seen := false
	size := 0
	for {
		line, err := s.in.ReadSlice('\n')
		size += len(line)
		switch {
		case err == io.EOF && size == 0:
			return 0, 0, io.EOF // the client closed its end between messages
		case err == io.EOF:
			return 0, 0, io.ErrUnexpectedEOF
		case err == bufio.ErrBufferFull:
			return 0, 0, errHeader{fmt.Sprintf("line is longer than %d bytes", headerBuffer)}
		case err != nil:
			return 0, 0, err
		case size > maxHeader:
			return 0, 0, errHeader{fmt.Sprintf("block is longer than %d bytes", maxHeader)}
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, 0, errHeader{fmt.Sprintf("line %.40q has no colon", line)}
		}
		if !strings.EqualFold(string(name), "Content-Length") {
			continue
		}
		if seen {
			return 0, 0, errHeader{"gives Content-Length twice"}
		}
		seen, length = true, string(bytes.Trim(value, " \t"))
	}
	if !seen {
		return 0, 0, errHeader{"has no Content-Length"}
	}
	// Digits only, as the library reads it: no sign, no spaces within.
	n, err := strconv.ParseUint(length, 10, 63)
	switch {
	case errors.Is(err, strconv.ErrRange) || err == nil && int64(n) > s.maxMessage:
		return 0, 0, errMessageTooLarge{limit: s.maxMessage, declared: length}
	case err != nil || n == 0:
		return 0, 0, errHeader{fmt.Sprintf("gives Content-Length %.40q, not a length in bytes", length)}
	}
	return int64(n), size, nil
}

// readFrame reads one message's header and body. The body's buffer is
// reused, and grows only to a length within --max-message.
func (s *tolerantStream) readFrame(ctx context.Context) ([]byte, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	n, size, err := s.readHeader()
	if err != nil {
		return nil, 0, err
	}
	if int64(cap(s.body)) < n {
		s.body = make([]byte, n)
	}
	body := s.body[:n]
	if _, err := io.ReadFull(s.in, body); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return body, int64(size) + n, nil
}

// readMessage reads and decodes one message, refusing as an invalid
// request one that readers may take differently (rpcmsg.Ambiguous): the
// decoder keeps the last of two ids and reads a lone surrogate as
// U+FFFD, so that the answer would go to an id the client never sent.
func (s *tolerantStream) readMessage(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.readFrame(ctx)
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
		var tooLarge errMessageTooLarge
		if errors.As(err, &tooLarge) && tooLarge.declared != "" {
			// Said to the client too, before the session ends.
			_, _ = s.inner.Write(ctx, jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, err.Error())))
		}
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
