// Package rule is the registry of cardscan's rules: the code, ID, default
// severity, profiles and documentation of each. It is a leaf, so that every
// package that reports findings (the validator, the crawler, signature
// verification, dump analysis, migration) registers its rules here without
// importing the others, and the rule reference (docs/rules.md), `cardscan
// explain`, SARIF help and --list-rules read one table.
package rule

import "fmt"

// Code identifies a rule. Its String form (the rule ID, e.g.
// "agent_id.format") is stable: output formats, summaries and users' scripts
// key on it. Codes are small integers so that a finding is plain data and
// reporting one allocates nothing.
type Code uint16

// MaxCode bounds the rule table: every code is below it.
const MaxCode = 512

// Severity says whether a finding fails the card.
type Severity uint8

const (
	// SeverityError marks a violated MUST: the card is invalid.
	SeverityError Severity = iota + 1
	// SeverityWarning marks a SHOULD or a risk: the card stays valid.
	SeverityWarning
	// SeverityOff, given to a policy, drops a rule's findings: the card is
	// judged as if the rule did not exist. No finding carries it.
	SeverityOff
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityOff:
		return "off"
	}
	return "unknown"
}

// ParseSeverity reads a severity as users write it: error, warning or off.
func ParseSeverity(s string) (Severity, bool) {
	switch s {
	case "error":
		return SeverityError, true
	case "warning":
		return SeverityWarning, true
	case "off":
		return SeverityOff, true
	}
	return 0, false
}

// Rule describes one rule for documentation and reports.
type Rule struct {
	Code        Code
	ID          string
	Severity    Severity // default severity; a policy may raise warnings to errors
	Profiles    Profiles // the profiles, releases or groups that report it
	Description string
}

var table [MaxCode]Rule

// Register adds rules to the table. It is meant for init functions and
// panics on a code out of range or registered twice, so that two packages
// that claim one code fail every test at once.
func Register(rules ...Rule) {
	for _, r := range rules {
		if r.Code == 0 || r.Code >= MaxCode || table[r.Code].ID != "" {
			panic(fmt.Sprintf("rule: code %d (%s) registered twice or out of range", r.Code, r.ID))
		}
		table[r.Code] = r
	}
}

// Known reports whether c is a registered rule.
func (c Code) Known() bool { return c < MaxCode && table[c].ID != "" }

// String returns the rule ID.
func (c Code) String() string {
	if c.Known() {
		return table[c].ID
	}
	return "unknown"
}

// Severity returns the rule's default severity, 0 (no severity) for a
// code no rule has. It is inlinable: the validator asks it for every
// finding.
func (c Code) Severity() Severity {
	if c < MaxCode {
		return table[c].Severity
	}
	return 0
}

// Description returns the rule's one-line description, "" for a code no
// rule has.
func (c Code) Description() string {
	if c < MaxCode {
		return table[c].Description
	}
	return ""
}

// All returns every rule, ordered by code, for documentation and
// --list-rules.
func All() []Rule {
	n := 0
	for i := range table {
		if table[i].ID != "" {
			n++
		}
	}
	out := make([]Rule, 0, n)
	for _, r := range table {
		if r.ID != "" {
			out = append(out, r)
		}
	}
	return out
}

// Lookup finds a rule by its ID.
func Lookup(id string) (Rule, bool) {
	for _, r := range table {
		if r.ID == id && id != "" {
			return r, true
		}
	}
	return Rule{}, false
}
