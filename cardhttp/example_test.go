package cardhttp_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/cardscan/cardscan/cardhttp"
)

func ExampleMiddleware() {
	check, err := cardhttp.Middleware(cardhttp.WithProfile("agentcard"), cardhttp.WithPaths("/agents"))
	if err != nil {
		log.Fatal(err)
	}
	register := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		card, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "registered a card of %d bytes\n", len(card))
	})
	srv := httptest.NewServer(check(register))
	defer srv.Close()

	for _, card := range []string{
		`{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4.1",
		  "capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],
		  "endpoint":{"protocol":"https","url":"https://ledger.example.org/agent"}}`,
		`{"agent_id":"01J0T5Y7ZK3M8Q2R4S6V9W1X3Y","name":"Ledger","version":"2.4",
		  "capabilities":[{"id":"ledger.summarise","description":"Summarises ledgers."}],
		  "endpoint":{"protocol":"https","url":"https://ledger.example.org/agent"}}`,
	} {
		resp, err := http.Post(srv.URL+"/agents", cardhttp.MediaType, strings.NewReader(card))
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %s\n%s\n", resp.StatusCode, resp.Header.Get("Content-Type"), strings.TrimSpace(string(body)))
	}
	// Output:
	// 200 text/plain; charset=utf-8
	// registered a card of 237 bytes
	// 422 application/problem+json
	// {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the agent card fails profile agentcard: 1 error, 0 warnings","profile":"agentcard","errors":[{"rule":"version.semver","path":"/version","message":"version is not Semantic Versioning 2.0.0 (got \"2.4\")","line":1,"column":68}],"warnings":[]}
}
