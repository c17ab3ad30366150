package fastvalidate

// For the tests of package fastvalidate_test, which may import packages
// that import this one (internal/ruledoc renders docs/rules.md's sections).
var (
	RulesTable         = rulesTable
	DisagreementsTable = disagreementsTable
)
