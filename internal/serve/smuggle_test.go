package serve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServe_ChunkedClosesConnection sends, on one raw connection, a
// request with both Content-Length and Transfer-Encoding: chunked (the
// shape of request smuggling: a proxy that frames by Content-Length sees
// one request where the server, framing by the chunks, sees two) and a
// pipelined GET /metrics behind it. RFC 9112 section 6.1 has the server
// close the connection after responding to such a request; net/http drops
// the Content-Length before any handler sees it, so serve closes after
// every chunked request, and the GET is never answered.
func TestServe_ChunkedClosesConnection(t *testing.T) {
	url, _, _, _ := startServe(t, testConfig())
	for _, c := range []struct {
		name, framing string
	}{
		{"Content-Length and chunked", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(validCard))},
		{"chunked", "Transfer-Encoding: chunked\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			req := "POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + c.framing + "\r\n" +
				string(chunk([]byte(validCard))) + "0\r\n\r\n" +
				"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if !resp.Close {
				t.Errorf("the response to the chunked request does not say Connection: close")
			}
			if second, err := http.ReadResponse(br, nil); err == nil {
				t.Errorf("the pipelined request was answered too: %s", second.Status)
			} else if err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Errorf("after the response: %v, want the connection closed", err)
			}
		})
	}
}
