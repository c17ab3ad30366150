package fastvalidate_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cardscan/cardscan/fastvalidate"
)

// Validate one card and print what is wrong with it.
func ExampleValidator_Validate() {
	v := fastvalidate.MustNew("agentcard")
	card := []byte(`{
		"agent_id": "01HZQK3P8EMXR9V7T5N2W4J6C0",
		"name": "ResearchAnalyst",
		"version": "1.2",
		"capabilities": [{"id": "Text.Summarise"}],
		"endpoint": {"protocol": "https", "url": "http://agents.example.com/api"},
		"pricing": {"base_cost_joules": 1e-22}
	}`)
	r := v.Validate(card)
	fmt.Println("valid:", r.Valid(), "errors:", r.Errors(), "warnings:", r.Warnings())
	for _, f := range r.Findings() {
		fmt.Printf("%s\t%s\t%s\t%s\n", f.Severity, f.Code, f.Path, f.Message())
	}
	// Output:
	// valid: false errors: 4 warnings: 2
	// error	version.semver	/version	version is not Semantic Versioning 2.0.0 (got "1.2")
	// error	capability.id	/capabilities/0/id	capability id does not match ^[a-z0-9][a-z0-9._-]*$ (got "Text.Summarise")
	// warning	capability.description-missing	/capabilities/0	capability has no description (RECOMMENDED); draft section 2.4.2 allows this; the AgentCard JSON Schema v1.0 does not
	// error	endpoint.url-scheme	/endpoint/url	protocol https needs an https:// URL (got "http://agents.example.com/api")
	// warning	endpoint.insecure	/endpoint/url	endpoint.url uses plain http: an on-path attacker can redirect it (section 8.5) (got "http://agents.example.com/api")
	// error	pricing.landauer	/pricing/base_cost_joules	base_cost_joules must be 0 or at least 2.854e-21 J (the Landauer limit at 300 K) (got 1e-22); the AgentCard JSON Schema v1.0 allows this; draft section 2.6.1 does not
}

// A card embedded in another document as a JSON string is judged as the
// object it holds.
func ExampleValidator_Validate_embeddedString() {
	v := fastvalidate.MustNew("agentcard")
	r := v.Validate([]byte(`"{\"agent_id\":\"01HZQK3P8EMXR9V7T5N2W4J6C0\",\"name\":\"\",\"version\":\"1.0.0\",` +
		`\"capabilities\":[{\"id\":\"a\",\"description\":\"d\"}],\"endpoint\":{\"protocol\":\"stdio\",\"url\":\"stdio://agent\"}}"`))
	for _, f := range r.Findings() {
		fmt.Println(f.Code, f.Path, f.Message())
	}
	// Output:
	// name.length /name name has 0 code points; 1 to 128 are allowed
}

// A Pool shares Validators among goroutines that come and go, such as
// request handlers.
func ExamplePool() {
	pool, err := fastvalidate.NewPool("agentcard")
	if err != nil {
		panic(err)
	}
	good := `{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"A","version":"1.0.0",` +
		`"capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://a.example"}}`
	bad := strings.Replace(good, `"1.0.0"`, `"1.0"`, 1)

	var valid, invalid atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				card := good
				if (i+j)%4 == 0 {
					card = bad
				}
				if pool.Valid([]byte(card)) {
					valid.Add(1)
				} else {
					invalid.Add(1)
				}
			}
		})
	}
	wg.Wait()

	// For findings, take a Validator and give it back when done with them.
	v := pool.Get()
	for _, f := range v.Validate([]byte(bad)).Findings() {
		fmt.Println(f.Code, f.Path)
	}
	pool.Put(v)
	fmt.Println("valid:", valid.Load(), "invalid:", invalid.Load())
	// Output:
	// version.semver /version
	// valid: 600 invalid: 200
}
