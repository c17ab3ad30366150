// Package ruledoc renders the rule table and its documentation
// (rule.All and Code.Doc) for people: the sections of
// docs/rules.md, `cardscan explain`, and the rule help of SARIF output.
// One renderer serves them all, so they cannot drift apart.
package ruledoc

import (
	"github.com/cardscan/cardscan/rule"
	"strings"

	"github.com/cardscan/cardscan/internal/report"
)

// DocURL is where docs/rules.md is published; a rule's section is at
// DocURL + "#" + Anchor(id).
const DocURL = "https://github.com/cardscan/cardscan/blob/main/docs/rules.md"

// Anchor is the fragment GitHub gives the heading "### ID" of a rule's
// section: the ID lower-cased, without the characters other than letters,
// digits, '-' and '_' ("agent_id.format" becomes "agent_idformat").
func Anchor(id string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(id) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// HelpURI is the address of the rule's section in the published docs.
func HelpURI(id string) string { return DocURL + "#" + Anchor(id) }

// Grounds is what the rule rests on, in one paragraph: the quoted
// specification sentence with its source, or the basis of a rule no
// specification states.
func Grounds(d rule.Doc) string {
	if d.Spec != "" {
		return "\u201c" + d.Spec + "\u201d (" + d.Source + ")"
	}
	return d.Basis
}

// Text is the plain-text explanation `cardscan explain` prints.
func Text(r rule.Rule) string {
	d, _ := r.Code.Doc()
	var b strings.Builder
	b.WriteString(r.ID + " (" + r.Severity.String() + ")\n")
	b.WriteString("profiles: " + r.Profiles.String() + "\n\n")
	b.WriteString(r.Description + "\n\n")
	if d.Spec != "" {
		b.WriteString("Specification: " + Grounds(d) + "\n\n")
	} else {
		b.WriteString("Rests on: " + d.Basis + "\n\n")
	}
	if d.Fail != "" {
		b.WriteString("Fails (profile " + profileOf(r, d) + "):\n  " + d.Fail + "\n")
		b.WriteString("Passes:\n  " + d.Pass + "\n\n")
	} else {
		b.WriteString("Example: " + d.Example + "\n\n")
	}
	b.WriteString("How to fix: " + d.Fix + "\n\n")
	b.WriteString("More: " + HelpURI(r.ID) + "\n")
	return b.String()
}

// Markdown is the rule's section of docs/rules.md, also the markdown help
// of its SARIF descriptor.
func Markdown(r rule.Rule) string {
	d, _ := r.Code.Doc()
	var b strings.Builder
	b.WriteString("### " + r.ID + "\n\n")
	b.WriteString("**" + r.Severity.String() + "** · profiles: " + r.Profiles.String() + "\n\n")
	b.WriteString(r.Description + "\n\n")
	if d.Spec != "" {
		b.WriteString("> " + d.Spec + "\n\n\u2014 " + d.Source + "\n\n")
	} else {
		b.WriteString("Rests on: " + d.Basis + "\n\n")
	}
	if d.Fail != "" {
		b.WriteString("Fails (profile `" + profileOf(r, d) + "`):\n\n```json\n" + d.Fail + "\n```\n\n")
		b.WriteString("Passes:\n\n```json\n" + d.Pass + "\n```\n\n")
	} else {
		b.WriteString("Example: " + d.Example + "\n\n")
	}
	b.WriteString("How to fix: " + d.Fix + "\n")
	return b.String()
}

// Profile is the profile that judges the rule's examples.
func Profile(r rule.Rule) string {
	d, _ := r.Code.Doc()
	return profileOf(r, d)
}

func profileOf(r rule.Rule, d rule.Doc) string {
	if d.Profile != "" {
		return d.Profile
	}
	p, _, _ := strings.Cut(r.Profiles.String(), ",")
	if p == "all" {
		return "agentcard"
	}
	return p
}

// SARIF is the rule's descriptor in a SARIF run.
func SARIF(r rule.Rule) report.SARIFRule {
	d, _ := r.Code.Doc()
	text := r.Description + "\n\n" + Grounds(d) + "\n\nHow to fix: " + d.Fix
	return report.SARIFRule{
		ID:               r.ID,
		ShortDescription: r.Description,
		FullDescription:  Grounds(d),
		Help:             text,
		HelpMarkdown:     Markdown(r),
		HelpURI:          HelpURI(r.ID),
		Level:            r.Severity.String(),
		Tags:             strings.Split(r.Profiles.String(), ","),
	}
}
