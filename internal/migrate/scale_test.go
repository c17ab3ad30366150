package migrate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// wideCard returns a card of release ver ("0.3" or "1.0") with n security
// schemes, all named by one requirement and each by one of its own; in 1.0,
// with n more that 0.3 cannot express and no requirement names.
func wideCard(ver string, n int) []byte {
	var b strings.Builder
	b.WriteString(`{"name":"Wide","description":"A card with long lists.","version":"1.0.0",`)
	b.WriteString(`"capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],`)
	b.WriteString(`"skills":[{"id":"s","name":"Skill","description":"Does a thing.","tags":["t"]}],`)
	if ver == "1.0" {
		b.WriteString(`"supportedInterfaces":[{"url":"https://a.example.com/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],`)
	} else {
		b.WriteString(`"protocolVersion":"0.3.0","url":"https://a.example.com/rpc","preferredTransport":"JSONRPC",`)
	}
	list := func(item func(i int) string) {
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
	}
	b.WriteString(`"securitySchemes":{`)
	if ver == "1.0" {
		list(func(i int) string {
			return fmt.Sprintf(`"key%d":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}},`, i) +
				fmt.Sprintf(`"dev%d":{"oauth2SecurityScheme":{"flows":{"deviceCode":{"deviceAuthorizationUrl":"https://auth.example.com/device","tokenUrl":"https://auth.example.com/token","scopes":{}}}}}`, i)
		})
		b.WriteString(`},"securityRequirements":[{"schemes":{`)
		list(func(i int) string { return fmt.Sprintf(`"key%d":{"list":[]}`, i) })
		b.WriteString(`}},`)
		list(func(i int) string { return fmt.Sprintf(`{"schemes":{"key%d":{"list":[]}}}`, i) })
	} else {
		list(func(i int) string { return fmt.Sprintf(`"key%d":{"type":"apiKey","in":"header","name":"X-Key"}`, i) })
		b.WriteString(`},"security":[{`)
		list(func(i int) string { return fmt.Sprintf(`"key%d":[]`, i) })
		b.WriteString(`},`)
		list(func(i int) string { return fmt.Sprintf(`{"key%d":[]}`, i) })
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// TestMigrateLinearInSchemes holds the rewrite of security schemes and
// requirements to the size of the card, both ways: eight times the
// schemes may look through at most sixteen times the member names.
// Looking each member up by name among its siblings cost 64 times, and a
// card of 40,000 schemes took seconds.
func TestMigrateLinearInSchemes(t *testing.T) {
	for _, tc := range []struct{ from, to string }{{"0.3", V10}, {"1.0", V03}} {
		t.Run(tc.from+"->"+tc.to, func(t *testing.T) {
			m := mustNew(t, Options{To: tc.to})
			looks := func(n int) int64 {
				card := wideCard(tc.from, n)
				if res := fastvalidate.MustNew("a2a/" + tc.from).Validate(card); !res.Valid() {
					t.Fatalf("the %d-scheme card is not valid: %v", n, res.Findings())
				}
				var rec Record
				before := nameCompares.Load()
				m.Migrate(nil, card, &rec)
				if rec.Status != StatusMigrated {
					t.Fatalf("the %d-scheme card was %s: %+v", n, rec.Status, rec.Changes)
				}
				return nameCompares.Load() - before
			}
			small, large := looks(100), looks(800)
			if large > 16*small {
				t.Errorf("%d member names looked through for 800 schemes, %d for 100: more than linear", large, small)
			}
		})
	}
}
