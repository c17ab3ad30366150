package fastvalidate

import (
	"errors"
	"github.com/cardscan/cardscan/rule"
	"strconv"
)

// SeverityOff, given to WithSeverity, drops a rule's findings: the card is
// judged as if the rule did not exist. No finding carries it.
const SeverityOff = rule.SeverityOff

// ErrOverride is wrapped by the error New returns for a WithSeverity it
// refuses.
var ErrOverride = errors.New("fastvalidate: bad severity override")

// WithSeverity makes every finding of rule c carry sev (SeverityError,
// SeverityWarning or SeverityOff), whatever the rule's default and the
// policy say: an override is the user's last word on a rule. Validate
// applies it as a finding is made, so Valid, Errors, Warnings and Findings
// all follow it, and a card's findings of a rule turned off cost nothing
// beyond the check that found them. A later override of the same rule wins.
//
// The rules that stop the judgement of a card (json.syntax, json.utf8,
// json.duplicate-key, json.depth, input.too-large) stay errors: a card
// they reject has had none of its other rules checked, and lowering them
// would pass a card nobody judged. New refuses to lower them, an unknown
// code, or another severity, with an error wrapping ErrOverride.
func WithSeverity(c Code, sev Severity) Option {
	return func(cfg *config) {
		var err error
		switch {
		case !c.Known():
			err = errors.New("no rule with code " + strconv.Itoa(int(c)))
		case sev != SeverityError && sev != SeverityWarning && sev != SeverityOff:
			err = errors.New(c.String() + ": severity " + strconv.Itoa(int(sev)) + " is none of error, warning and off")
		case sev != SeverityError && Unjudged(c):
			err = errors.New(c.String() + " cannot be " + sev.String() + ": a card it rejects is not judged further")
		}
		if err != nil {
			cfg.err = errors.Join(cfg.err, ErrOverride, err)
			return
		}
		if cfg.overrides == nil {
			cfg.overrides = new([maxCode]Severity)
		}
		cfg.overrides[c] = sev
	}
}

// Unjudged reports whether a finding of rule c means the card's other
// rules were never checked, which is why WithSeverity cannot lower c.
func Unjudged(c Code) bool {
	switch c {
	case CodeJSONSyntax, CodeJSONUTF8, CodeJSONDuplicateKey, CodeJSONDepth, CodeInputTooLarge:
		return true
	}
	return false
}

// level returns the severity a finding of rule c reported as sev carries
// under the Result's overrides: sev itself when c has none.
func (r *Result) level(c Code, sev Severity) Severity {
	if r.over != nil && r.over[c] != 0 {
		return r.over[c]
	}
	return sev
}
