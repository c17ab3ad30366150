// Package cardhttp checks agent cards in HTTP traffic, in process, at a cost
// small enough to pay on every request.
//
// # Requests
//
// [Middleware] wraps a handler in the usual func(http.Handler) http.Handler
// shape. A request it applies to (by default a POST, PUT or PATCH, in any
// letter case, on any path) whose body is JSON (application/json,
// text/json or any +json type such as application/agentcard+json), plain
// or gzip, has its body read once, up to a cap, and judged:
//
//   - a body over the cap, or over one the server sets with
//     [net/http.MaxBytesHandler], is turned away with 413 Content Too
//     Large; a
//     declared Content-Length over the cap is turned away unread. Over
//     HTTP/1 the response closes the connection and the rest of the body
//     is read and discarded, up to 16 MiB for 5 s, so that a client that
//     sends its whole body before reading sees the 413 rather than a
//     connection reset; over HTTP/2 only the request's stream ends, and
//     the connection's other streams go on;
//   - a body of any other media type, of none, or in an encoding other
//     than gzip is turned away with 415 ([WithRejectOtherTypes] passes
//     other types on instead), and so is a card in UTF-16 or UTF-32 text
//     (by its byte order mark, or by where NUL bytes fall among its first
//     four), named in the problem's detail, as cardscan serve does;
//   - an invalid card is turned away with 422 and an RFC 9457
//     application/problem+json body listing the findings, and so is a
//     valid one that fails [WithSignatures] or [WithTrust], listing its
//     a2a.signature-* errors;
//   - a valid card reaches the next handler with its body intact, served
//     from the one buffered copy.
//
// [WithRejectFunc] replaces the problem response with one of the caller's.
//
// # Responses
//
// [ModifyResponse] returns a hook for [net/http/httputil.ReverseProxy] that
// judges agent cards served by the upstream at the well-known paths of both
// specs (/.well-known/agentcard, /.well-known/agent-card.json and
// /.well-known/agent.json) and replaces an invalid one with a 502 problem
// response. A valid card is passed on byte for byte: signed cards break if
// re-serialised.
//
// # Hostile clients
//
// The buffer for a body grows as its bytes arrive, not to the declared
// Content-Length at once, so a connection that promises a large body and
// sends none holds a few KiB. It doubles, and never past the declared
// length or the cap: a body holds at most the cap (plus one byte), and the
// buffers allocated while it arrives add up to less than twice that.
//
// A body is read until it ends, passes the cap, or the connection fails
// or reaches its read deadline. The request's context is not consulted:
// a handler timeout such as [net/http.TimeoutHandler] answers the client
// but leaves the read waiting on a client that stalls, so a server facing
// hostile clients sets [net/http.Server.ReadTimeout] too. The middleware
// does not bound connections or requests in flight either: that is the
// server's job (see cardscan serve's --max-inflight for one way).
//
// # Cost
//
// Bodies are read into pooled buffers and judged by pooled validators, so
// reading and judging a valid card allocates nothing once the pools are
// warm; handing the body on costs one small allocation.
//
// # Profiles
//
// Cards are judged by the "auto" profile, which recognises each card's
// dialect; [WithProfile] picks another, and [WithValidatorOptions] passes
// the validator's own options, such as its policy or nesting limit.
package cardhttp
