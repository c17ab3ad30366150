package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Bindings cardscan probe asks, as A2A 1.0 names them (0.3's transport
// uses the same names).
const (
	bindingJSONRPC = "JSONRPC"
	bindingREST    = "HTTP+JSON"
	bindingGRPC    = "GRPC"
)

// iface is one interface a card advertises, as probe asks it.
type iface struct {
	url      string
	binding  string // as the card spells it
	version  string // the protocol version it declares, "" when none
	pointer  string // JSON Pointer of the interface in the card
	extended bool   // the card promises an extended card
	// beyond says the interface comes after the card's first
	// maxProbedInterfaces, and is not asked.
	beyond bool
}

// probeCard is a card read for probing: where it is, what it is and the
// interfaces it advertises.
type probeCard struct {
	input   string
	line    int
	cardURL string // the URL a fetch record names, its password redacted, else ""
	valid   bool
	profile string
	ifaces  []iface
	// err says why the record holds no card (a fetch record of a URL that
	// yielded none); the record is then no card, and ifaces is empty.
	err string
}

// cardShape holds the members of every A2A release that say where and how
// the agent is reached.
type cardShape struct {
	// 1.0
	SupportedInterfaces []struct {
		URL             string `json:"url"`
		ProtocolBinding string `json:"protocolBinding"`
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"supportedInterfaces"`
	Capabilities struct {
		ExtendedAgentCard bool `json:"extendedAgentCard"`
	} `json:"capabilities"`
	// 0.x
	URL                  string `json:"url"`
	PreferredTransport   string `json:"preferredTransport"`
	ProtocolVersion      string `json:"protocolVersion"`
	AdditionalInterfaces []struct {
		URL       string `json:"url"`
		Transport string `json:"transport"`
	} `json:"additionalInterfaces"`
	SupportsExtended bool `json:"supportsAuthenticatedExtendedCard"`
}

// maxProbedInterfaces bounds the interfaces of one card probe asks: a
// card is untrusted input, and one listing thousands (a 2 MiB card holds
// some 20,000) would send as many requests to the hosts it names. Cards
// list one to a few, one per binding.
const maxProbedInterfaces = 32

// interfacesOf lists the interfaces card advertises: 1.0's
// supportedInterfaces when it has them, else 0.x's url (with its
// preferredTransport, JSONRPC when none) and additionalInterfaces, once
// each (0.3 repeats the main url among the additional ones). A member of
// the wrong type leaves the card with the interfaces it could read.
// Those past the first maxProbedInterfaces are marked beyond.
func interfacesOf(card []byte) []iface {
	out := listedInterfaces(card)
	for i := maxProbedInterfaces; i < len(out); i++ {
		out[i].beyond = true
	}
	return out
}

// listedInterfaces are the interfaces card lists, as interfacesOf says.
func listedInterfaces(card []byte) []iface {
	var c cardShape
	if err := json.Unmarshal(card, &c); err != nil {
		// A member of the wrong type: read what can be read.
		var loose map[string]json.RawMessage
		if json.Unmarshal(card, &loose) != nil {
			return nil
		}
		for k, v := range loose {
			one, _ := json.Marshal(map[string]json.RawMessage{k: v})
			json.Unmarshal(one, &c)
		}
	}
	extended := c.Capabilities.ExtendedAgentCard || c.SupportsExtended
	var out []iface
	if len(c.SupportedInterfaces) > 0 {
		for i, si := range c.SupportedInterfaces {
			out = append(out, iface{url: si.URL, binding: si.ProtocolBinding, version: si.ProtocolVersion,
				pointer: "/supportedInterfaces/" + strconv.Itoa(i), extended: extended})
		}
		return out
	}
	if c.URL == "" {
		return nil
	}
	main := c.PreferredTransport
	if main == "" {
		main = bindingJSONRPC
	}
	out = append(out, iface{url: c.URL, binding: main, version: c.ProtocolVersion, pointer: "/url", extended: extended})
	for i, ai := range c.AdditionalInterfaces {
		if ai.URL == c.URL && strings.EqualFold(ai.Transport, main) {
			continue
		}
		out = append(out, iface{url: ai.URL, binding: ai.Transport, version: c.ProtocolVersion,
			pointer: "/additionalInterfaces/" + strconv.Itoa(i), extended: extended})
	}
	return out
}

// cardReader reads the cards of one input: a card file (.json), or NDJSON
// (a dump, or the records of cardscan fetch --format cards, whose card
// member is the card), plain or compressed with zstd or gzip.
type cardReader struct {
	name      string
	whole     bool
	br        *bufio.Reader
	closer    io.Closer
	maxRecord int64
	line      int
	done      bool
	long      []byte
}

func openCards(name, path string, stdin io.Reader, maxRecord int64) (*cardReader, error) {
	var src io.Reader = stdin
	var file *os.File
	if path != "" {
		f, err := openFile(path)
		if err != nil {
			return nil, err
		}
		src, file = f, f
	}
	br := bufio.NewReaderSize(src, 256<<10)
	r := &cardReader{name: name, br: br, maxRecord: maxRecord, closer: file}
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderMaxMemory(128<<20))
		if err != nil {
			r.Close()
			return nil, err
		}
		r.br = bufio.NewReaderSize(d.IOReadCloser(), 256<<10)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		g, err := gzip.NewReader(br)
		if err != nil {
			r.Close()
			return nil, err
		}
		r.br = bufio.NewReaderSize(g, 256<<10)
	}
	// Read as UTF-8, a UTF-16 card is no card at all: refused as the
	// validation run refuses it.
	head, _ = r.br.Peek(4)
	if err := mediatype.CheckEncoding(head); err != nil {
		r.Close()
		return nil, err
	}
	r.whole = strings.HasSuffix(strings.ToLower(path), ".json")
	return r, nil
}

func (r *cardReader) Close() error {
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// next returns the next record's text and line, or io.EOF. A record longer
// than maxRecord is skipped unread and named by a *longRecord error.
func (r *cardReader) next() ([]byte, int, error) {
	if r.done {
		return nil, 0, io.EOF
	}
	if r.whole {
		r.done = true
		b, err := io.ReadAll(io.LimitReader(r.br, r.maxRecord+1))
		if err != nil {
			return nil, 1, err
		}
		if int64(len(b)) > r.maxRecord {
			return nil, 1, &longRecord{r.maxRecord}
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, 0, io.EOF // no card, as a blank NDJSON line is none
		}
		return b, 1, nil
	}
	for {
		r.line++
		b, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			r.long = append(r.long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) && int64(len(r.long)) <= r.maxRecord {
				b, err = r.br.ReadSlice('\n')
				r.long = append(r.long, b...)
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.br.ReadSlice('\n')
			}
			b = r.long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, r.line, fmt.Errorf("line %d: %w", r.line, err)
		}
		if err != nil {
			r.done = true
		}
		text := bytes.TrimSpace(b)
		if int64(len(text)) > r.maxRecord {
			return nil, r.line, &longRecord{r.maxRecord}
		}
		if len(text) > 0 {
			return text, r.line, nil
		}
		if r.done {
			return nil, 0, io.EOF
		}
	}
}

// longRecord is a record longer than --max-record.
type longRecord struct{ max int64 }

func (e *longRecord) Error() string {
	return "longer than --max-record " + cmdflag.FormatSize(e.max)
}

// fetchRecord is the part of a cardscan fetch --format cards record probe
// reads: the URL fetched and the card as served.
type fetchRecord struct {
	URL  *string         `json:"url"`
	Card json.RawMessage `json:"card"`
}

// readProbeCard judges one record's card with v and lists its interfaces.
// A fetch record's card is its card member (a record without a card, a
// URL that yielded none, has no interfaces).
func readProbeCard(input string, line int, text []byte, v *fastvalidate.Validator) probeCard {
	pc := probeCard{input: input, line: line}
	card := text
	var fr fetchRecord
	if bytes.HasPrefix(text, []byte(`{"url":`)) && json.Unmarshal(text, &fr) == nil && fr.URL != nil && fr.Card != nil {
		pc.cardURL = redactPassword(*fr.URL)
		card = fr.Card
		if bytes.Equal(card, []byte("null")) {
			pc.err = "the fetch record of " + printable(pc.cardURL) + " holds no card"
			return pc
		}
	}
	res := v.Validate(card)
	pc.valid, pc.profile = res.Valid(), res.Profile
	if !strings.HasPrefix(pc.profile, "a2a") {
		return pc
	}
	pc.ifaces = interfacesOf(card)
	return pc
}

// shown is the interface's URL as records name it, its password written
// xxxxx.
func (it *iface) shown() string { return redactPassword(it.url) }

// host is the host (name and port) probing it asks, as the per-host limits
// count them: the gRPC client's for GRPC, the HTTP client's for the
// bindings over HTTP; "" for an interface probe does not ask.
func (it *iface) host() string {
	switch strings.ToUpper(it.binding) {
	case bindingGRPC:
		if addr, _, err := grpcTarget(it.url); err == nil {
			return strings.ToLower(addr)
		}
	case bindingJSONRPC, bindingREST:
		if u, err := url.Parse(it.url); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return strings.ToLower(canonicalAddr(u))
		}
	}
	return ""
}
