package lspserver

import (
	"strings"
	"unicode"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/rule"
)

// hover explains what lies at a position: the member under the cursor,
// with its schema's description, and each finding whose range holds the
// position, with `cardscan explain`'s text for its rule.
func (s *Server) hover(p textDocumentPositionParams) any {
	d := s.docs[p.TextDocument.URI]
	if d == nil || d.text == nil {
		return nil
	}
	li := newLineIndex(d.text, d.enc)
	off := li.offset(p.Position)
	var parts []string
	var rng *Range
	pl := locate(d.text, off)
	if pl.atKey && pl.inObject && pl.tokStart >= 0 {
		if m, ok := lookupMember(d.judged, pl.container, pl.key); ok {
			parts = append(parts, memberMarkdown(d.judged, m))
			rng = &Range{Start: li.position(pl.tokStart), End: li.position(pl.tokEnd)}
		}
	}
	for _, f := range d.findings {
		if off < f.offset || off > max(tokenEnd(d.text, f.offset), f.offset+1) {
			continue
		}
		r, _ := rule.Lookup(f.code.String())
		parts = append(parts, "**"+f.code.String()+"**: "+markdownText(report.TextSafe(f.message))+"\n\n```text\n"+ruledoc.Text(r)+"```")
	}
	if len(parts) == 0 {
		return nil
	}
	return hover{Contents: markupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n---\n\n")}, Range: rng}
}

func memberMarkdown(profile string, m fastvalidate.MemberDoc) string {
	var b strings.Builder
	b.WriteString("**" + m.Name + "**")
	if m.Required {
		b.WriteString(" (required)")
	}
	b.WriteString(" \u2014 " + profile + "\n\n")
	if m.Doc != "" {
		b.WriteString(m.Doc + "\n\n")
	}
	if len(m.Enum) > 0 {
		b.WriteString("Values: `" + strings.Join(m.Enum, "`, `") + "`\n")
	}
	return b.String()
}

// markdownText escapes every ASCII punctuation character of s, which
// CommonMark (section 2.4) then shows as itself: card text a message
// quotes cannot become a link, an image, HTML, emphasis or a code fence
// in the hover, nor end the line it is on.
func markdownText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
			continue
		case r < 0x80 && unicode.IsPunct(r) || strings.ContainsRune("$+<=>^`|~", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
