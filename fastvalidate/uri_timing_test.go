package fastvalidate

import "testing"

// BenchmarkParseURI parses the URLs cards are made of: a plain https host
// with a path, a well-known path, and a host with a port.
func BenchmarkParseURI(b *testing.B) {
	urls := [][]byte{
		[]byte("https://agents.example.com/api/v1"),
		[]byte("https://research.example.org/.well-known/agent-card.json"),
		[]byte("http://localhost:8080/"),
	}
	size := 0
	for _, u := range urls {
		size += len(u)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	ok := true
	for b.Loop() {
		for _, u := range urls {
			_, valid := ParseURI(u)
			ok = ok && valid
		}
	}
	if !ok {
		b.Fatal("ParseURI rejected a benchmark URL")
	}
}
