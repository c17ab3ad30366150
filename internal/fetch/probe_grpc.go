package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// The A2A gRPC service's methods probe calls, by release. Only the
// requests are written, each a string field or nothing: the answers probe
// expects are errors, and whatever else a server answers is read only as
// far as the wire format goes. The field numbers follow a2a-v1.0.1.proto
// (package lf.a2a.v1: GetTaskRequest {tenant = 1; id = 2},
// GetExtendedAgentCardRequest {tenant = 1}) and the 0.3 a2a.proto (package
// a2a.v1: GetTaskRequest {name = 1, "tasks/{id}"}, GetAgentCardRequest {}).
// protowire writes them rather than descriptors built at run time, which
// would link protodesc and descriptor.proto, whose init every start pays.
type grpcRelease struct {
	service  string           // full service name
	idField  protowire.Number // GetTaskRequest's field for the task
	idPrefix string           // "tasks/" where the field is a resource name
	extended string           // the extended card's method; its request is empty
}

// The releases are static data, not a map, which package init would build.
var (
	grpcRelease10 = grpcRelease{service: "lf.a2a.v1.A2AService", idField: 2, extended: "GetExtendedAgentCard"}
	grpcRelease03 = grpcRelease{service: "a2a.v1.A2AService", idField: 1, idPrefix: "tasks/", extended: "GetAgentCard"}
)

// grpcReleaseOf is 1.0's service for a 1.x card, 0.3's otherwise.
func grpcReleaseOf(oneX bool) *grpcRelease {
	if oneX {
		return &grpcRelease10
	}
	return &grpcRelease03
}

// getTaskRequest is GetTaskRequest asking for task id, as protobuf encodes
// a message with that one string field set.
func (r *grpcRelease) getTaskRequest(id string) wireMessage {
	b := protowire.AppendTag(nil, r.idField, protowire.BytesType)
	return protowire.AppendString(b, r.idPrefix+id)
}

// wireMessage is a protobuf message as its encoded bytes. The probe's
// calls send and receive it through wireCodec.
type wireMessage []byte

// wireCodec sends a wireMessage as it is and receives one after checking
// that it is protobuf's wire format, as decoding a message whose fields
// are all unknown would.
type wireCodec struct{}

func (wireCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(*wireMessage)
	if !ok {
		return nil, fmt.Errorf("probe's gRPC codec cannot encode a %T", v)
	}
	return *m, nil
}

func (wireCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*wireMessage)
	if !ok {
		return fmt.Errorf("probe's gRPC codec cannot decode into a %T", v)
	}
	for rest := data; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return protowire.ParseError(n)
		}
		rest = rest[n:]
		if n = protowire.ConsumeFieldValue(num, typ, rest); n < 0 {
			return protowire.ParseError(n)
		}
		rest = rest[n:]
	}
	*m = append((*m)[:0], data...)
	return nil
}

// Name is empty so that the content-type stays application/grpc, as with
// gRPC's own protobuf codec when no subtype is asked for.
func (wireCodec) Name() string { return "" }

// hostGate lets at most n probes at a time reach one host, as the HTTP
// client's hostLimiter does for requests; hosts with none under way are
// forgotten.
type hostGate struct {
	n     int
	mu    sync.Mutex
	hosts map[string]*hostSlots
}

func (g *hostGate) enter(ctx context.Context, host string) (func(), error) {
	g.mu.Lock()
	hs := g.hosts[host]
	if hs == nil {
		hs = &hostSlots{sem: make(chan struct{}, g.n)}
		g.hosts[host] = hs
	}
	hs.users++
	g.mu.Unlock()
	leave := func(held bool) {
		if held {
			<-hs.sem
		}
		g.mu.Lock()
		if hs.users--; hs.users == 0 {
			delete(g.hosts, host)
		}
		g.mu.Unlock()
	}
	select {
	case hs.sem <- struct{}{}:
		return func() { leave(true) }, nil
	case <-ctx.Done():
		leave(false)
		return nil, ctx.Err()
	}
}

// grpcTarget is where a GRPC interface is, and whether over TLS: an
// http:// or grpc:// URL is plaintext (h2c), anything else (https://,
// grpcs://, a bare host:port) TLS.
func grpcTarget(raw string) (host string, useTLS bool, err error) {
	if !strings.Contains(raw, "://") {
		raw = "grpcs://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", false, errors.New("not a URL with a host")
	}
	if err := checkPort(u); err != nil {
		return "", false, err
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "grpc":
		return canonicalAddrFor(u, "80"), false, nil
	case "https", "grpcs":
		return canonicalAddrFor(u, "443"), true, nil
	}
	return "", false, fmt.Errorf("scheme %q is not one a gRPC interface is reached by", u.Scheme)
}

func canonicalAddrFor(u *url.URL, port string) string {
	if p := u.Port(); p != "" {
		port = p
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// newGRPCProber returns the prober of GRPC interfaces: a real gRPC client
// whose connections are dialled by the fetcher's guarded dialer, its TLS
// handshake made here with Go's verifier so that a certificate's failure is
// told as for HTTP, n probes at a time per host.
func newGRPCProber(f *fetcher, n int) func(ctx context.Context, it *iface, taskID string) outcome {
	gate := &hostGate{n: n, hosts: map[string]*hostSlots{}}
	return func(ctx context.Context, it *iface, id string) outcome {
		addr, useTLS, err := grpcTarget(it.url)
		if err != nil {
			o := outcome{class: classNotProbed, answer: "not probed"}
			o.add(fastvalidate.CodeProbeNotProbed, it.pointer, fmt.Sprintf("%q: %v", it.shown(), err))
			return o
		}
		leave, err := gate.enter(ctx, strings.ToLower(addr))
		if err != nil {
			if mt := maxTimeOf(ctx); mt != nil {
				return failed(it, mt)
			}
			return failed(it, err)
		}
		defer leave()
		return probeGRPC(ctx, f, it, addr, useTLS, id)
	}
}

// grpcConn is one connection's dial, remembering what failed and what the
// server's certificate was.
type grpcConn struct {
	f         *fetcher
	useTLS    bool
	host      string
	mu        sync.Mutex
	dialErr   error
	connected bool // a dial succeeded, TLS included
	state     *tls.ConnectionState
}

func (c *grpcConn) dial(ctx context.Context, addr string) (net.Conn, error) {
	conn, err := c.f.dial(ctx, "tcp", addr)
	if err == nil && c.useTLS {
		tc := tls.Client(conn, &tls.Config{ServerName: c.host, RootCAs: c.f.rootCAs, NextProtos: []string{"h2"}})
		hctx, cancel := context.WithTimeout(ctx, c.f.connectTimeout)
		err = tc.HandshakeContext(hctx)
		cancel()
		if err == nil {
			st := tc.ConnectionState()
			c.mu.Lock()
			c.state, c.connected = &st, true
			c.mu.Unlock()
			return tc, nil
		}
		conn.Close()
	}
	if err != nil {
		c.mu.Lock()
		if c.dialErr == nil {
			c.dialErr = err
		}
		c.mu.Unlock()
		return nil, err
	}
	c.mu.Lock()
	c.connected = true
	c.mu.Unlock()
	return conn, nil
}

// noAnswer says why a call that ended with code and err got no answer
// to judge, or returns nil when it got one: --max-time ran out; no
// connection, which the dial's own error explains (refused, the guard,
// the certificate) where gRPC's status only quotes it; or a connection
// made and no answer on it, the server's silence.
func (c *grpcConn) noAnswer(ctx context.Context, code codes.Code, err error) error {
	if mt := maxTimeOf(ctx); mt != nil {
		return mt
	}
	c.mu.Lock()
	dialErr, connected := c.dialErr, c.connected
	c.mu.Unlock()
	switch {
	case dialErr != nil && (err != nil || code == codes.Unavailable):
		return dialErr
	case err != nil && connected:
		return &silentError{timeout: c.f.timeout, err: err, conn: true}
	}
	return err
}

func probeGRPC(ctx context.Context, f *fetcher, it *iface, addr string, useTLS bool, id string) outcome {
	host, _, _ := net.SplitHostPort(addr)
	gc := &grpcConn{f: f, useTLS: useTLS, host: host}
	// The TLS handshake is the dial's, so gRPC itself runs over the
	// connection as given.
	conn, err := grpc.NewClient("passthrough:///"+addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(gc.dial),
		grpc.WithUserAgent(f.userAgent),
		// gRPC's own bound is 16 MB of headers and trailers, whose
		// status message probe clips to 200 bytes anyway.
		grpc.WithMaxHeaderListSize(maxHeaderBytes),
		grpc.WithNoProxy())
	if err != nil {
		return failed(it, err)
	}
	defer conn.Close()
	oneX := it.is1x()
	rel := grpcReleaseOf(oneX)
	start := time.Now()
	// 1.0 section 3.6: the version travels as the a2a-version metadata.
	if v := it.headerVersion(); v != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "a2a-version", v)
	}
	code, msg, err := grpcGetTask(ctx, f, conn, rel, id)
	if err := gc.noAnswer(ctx, code, err); err != nil {
		return failed(it, err)
	}
	var o outcome
	o.ttfb = time.Since(start)
	if st := gc.state; st != nil && len(st.PeerCertificates) > 0 {
		leaf := st.PeerCertificates[0]
		o.tls = &tlsInfo{verified: true, notAfter: leaf.NotAfter, daysLeft: int(time.Until(leaf.NotAfter).Hours() / 24)}
	}
	(&prober{f: f}).checkTLS(it, &o)
	what := "GetTask (" + rel.service + ")"
	switch code {
	case codes.NotFound:
		o.class, o.answer = classAnswering, "task not found (NOT_FOUND)"
	case codes.Unauthenticated, codes.PermissionDenied:
		o.class, o.answer = classAuthRequired, code.String()
		o.add(fastvalidate.CodeProbeAuthRequired, it.pointer, fmt.Sprintf("%s answered %s without credentials", what, code))
	case codes.Unimplemented:
		other := grpcReleaseOf(!oneX)
		octx := metadata.NewOutgoingContext(ctx, nil)
		if v := versionHeader(!oneX, ""); v != "" {
			octx = metadata.AppendToOutgoingContext(octx, "a2a-version", v)
		}
		if c2, _, err := grpcGetTask(octx, f, conn, other, id); err == nil && c2 == codes.NotFound {
			o.class, o.answer = classAnswering, "task not found (NOT_FOUND) from "+other.service
			o.add(fastvalidate.CodeProbeVersion, it.pointer, fmt.Sprintf("declares protocol version %s, but %s is unimplemented and %s, another release's service, answers", declared(it), rel.service, other.service))
		} else {
			o.class, o.answer = classWrongBinding, "UNIMPLEMENTED"
			o.add(fastvalidate.CodeProbeNotFound, it.pointer, fmt.Sprintf("a gRPC server answers, but not the A2A service: %s is unimplemented (%s)", what, clip(msg)))
		}
	case codes.OK:
		o.class, o.answer = classAnswering, "a task"
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, what+" for a task id that cannot exist answered a task, not NOT_FOUND")
	default:
		// An HTTP server that is not gRPC: an HTTP/2 one answers with its
		// status and media type, an HTTP/1 one does not read HTTP/2's
		// preface.
		if strings.Contains(msg, "unexpected HTTP status code") || strings.Contains(msg, "content-type") || strings.Contains(msg, "server preface") {
			o.class, o.answer = classWrongBinding, "HTTP, not gRPC"
			rule := fastvalidate.CodeProbeWrongBinding
			if strings.Contains(msg, "text/html") {
				rule = fastvalidate.CodeProbeHTML
			}
			o.add(rule, it.pointer, "declared GRPC, answered plain HTTP: "+clip(msg))
			return o
		}
		if code == codes.Unavailable {
			o.class, o.answer = classUnreachable, clip(msg)
			o.add(fastvalidate.CodeProbeUnreachable, it.pointer, "cannot reach "+addr+" over gRPC: "+clip(msg))
			return o
		}
		o.class, o.answer = classAnswering, code.String()
		o.add(fastvalidate.CodeProbeUnexpected, it.pointer, fmt.Sprintf("%s for a task id that cannot exist answered %s (%s), not NOT_FOUND", what, code, clip(msg)))
	}
	if it.extended && (o.class == classAnswering || o.class == classAuthRequired) {
		grpcExtendedCard(ctx, f, conn, rel, it, &o)
	}
	return o
}

// grpcGetTask calls GetTask for id and returns the status the server
// answered; err is a failure to get any answer (a timeout, no connection).
func grpcGetTask(ctx context.Context, f *fetcher, conn *grpc.ClientConn, rel *grpcRelease, id string) (codes.Code, string, error) {
	return grpcCall(ctx, f, conn, "/"+rel.service+"/GetTask", rel.getTaskRequest(id))
}

func grpcCall(ctx context.Context, f *fetcher, conn *grpc.ClientConn, method string, req wireMessage) (codes.Code, string, error) {
	cctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	var answer wireMessage
	err := conn.Invoke(cctx, method, &req, &answer, grpc.WaitForReady(false), grpc.ForceCodec(wireCodec{}))
	if err == nil {
		return codes.OK, "", nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return codes.Unknown, "", err
	}
	if st.Code() == codes.DeadlineExceeded || st.Code() == codes.Canceled {
		return st.Code(), st.Message(), context.DeadlineExceeded
	}
	return st.Code(), st.Message(), nil
}

// grpcExtendedCard asks for the extended card without credentials.
func grpcExtendedCard(ctx context.Context, f *fetcher, conn *grpc.ClientConn, rel *grpcRelease, it *iface, o *outcome) {
	code, msg, err := grpcCall(ctx, f, conn, "/"+rel.service+"/"+rel.extended, nil)
	switch {
	case err != nil:
		o.extended = "no answer"
	case code == codes.Unauthenticated || code == codes.PermissionDenied:
		o.extended = "asks for authentication (" + code.String() + ")"
	case code == codes.OK:
		o.extended = "served without authentication"
		o.add(fastvalidate.CodeProbeExtendedCardOpen, it.pointer, rel.extended+" served the extended card to a call without credentials")
	case code == codes.Unimplemented || code == codes.NotFound || code == codes.FailedPrecondition:
		o.extended = "missing"
		o.add(fastvalidate.CodeProbeExtendedCardMissing, it.pointer, fmt.Sprintf("the card promises an extended card, and %s answered %s (%s)", rel.extended, code, clip(msg)))
	default:
		o.extended = "answered " + code.String()
	}
}
