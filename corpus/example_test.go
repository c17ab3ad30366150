package corpus_test

import (
	"fmt"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
)

// A defective card names the rule it breaks; the validator of its profile
// must report exactly that rule.
func Example() {
	g, err := corpus.New(corpus.Options{
		Seed:       1,
		Dialects:   []string{"agentcard"},
		DefectRate: 1,
		Defects:    []string{"capability.id/uppercase"},
	})
	if err != nil {
		panic(err)
	}
	c := g.Next()
	res := fastvalidate.MustNew(c.Profile).Validate(c.JSON)
	f := res.Findings()[0]
	fmt.Println(c.Defect, "->", c.Rule)
	fmt.Println(res.Valid(), f.Code, f.Path)
	// Output:
	// capability.id/uppercase -> capability.id
	// false capability.id /capabilities/3/id
}
