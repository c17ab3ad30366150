package fastvalidate

// NewFinding returns a finding of rule code for a caller that judges what a
// card's bytes cannot show (how the card was served, say) and reports it
// beside a Validator's findings, in the same shape and through the same
// renderers. message replaces the rule's description and is reported as it
// is, never read as a format; an empty message stands for the description.
//
// The finding's strings are the caller's: unlike a Validator's findings, it
// borrows nothing from a Result.
func NewFinding(code Code, sev Severity, path, message string) Finding {
	f := Finding{Code: code, Severity: sev, Path: path}
	if message != "" {
		// A template that is only %s prints got verbatim, whatever verbs
		// message itself holds.
		f.msg, f.got = "%s", message
	}
	return f
}
