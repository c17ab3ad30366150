package compare

// Pair names two tools whose verdicts the report compares, and what a
// difference between them means.
type Pair struct {
	A, B string // tool keys
	// MustAgree marks two implementations of the same rules: every
	// difference is a bug in one of them.
	MustAgree bool
}

// Pairs are compared on every corpus where both tools ran.
var Pairs = []Pair{
	{A: "fastvalidate-agentcard", B: "fastvalidate-agentcard-schema"},
	{A: "fastvalidate-agentcard-schema", B: "jsonschema", MustAgree: true},
	{A: "fastvalidate-agentcard-schema", B: "ajv", MustAgree: true},
	{A: "jsonschema", B: "ajv", MustAgree: true},
	{A: "fastvalidate-a2a", B: "a2ago"},
}

// analyze compares the verdicts of each pair that ran on the table's
// corpus, and takes excerpts of the example cards.
func analyze(t *Table, cards [][]byte) {
	names := map[string]string{}
	for _, row := range t.Rows {
		names[row.Tool.Key] = row.Tool.Name
	}
	for _, p := range Pairs {
		a, okA := t.Verdicts[p.A]
		b, okB := t.Verdicts[p.B]
		if !okA || !okB {
			continue
		}
		cmp := compareSides(Side{Key: p.A, Name: names[p.A], Verdicts: a}, Side{Key: p.B, Name: names[p.B], Verdicts: b})
		cmp.MustAgree = p.MustAgree
		fillExcerpts(cmp, cards)
		t.Comparisons = append(t.Comparisons, cmp)
	}
	if t.Expected == nil {
		return
	}
	for _, key := range schemaJudges {
		if v, ok := t.Verdicts[key]; ok {
			t.Scores = append(t.Scores, score(key, names[key], v, t.Expected))
		}
	}
}

// schemaJudges are the tools that judge by the JSON Schema, which a
// corpus's expected verdicts are written for.
var schemaJudges = []string{"fastvalidate-agentcard-schema", "jsonschema", "ajv"}
