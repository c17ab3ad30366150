// Package docs holds cardscan's documentation; its test keeps the links
// between the documents, and from README.md into them, pointing at files
// and headings that exist.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// inlineLink matches [text](target) where target has no scheme: links to
// the web are not checked here.
var inlineLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil || len(pages) == 0 {
		t.Fatalf("no Markdown pages beside the test: %v", err)
	}
	anchors := map[string]map[string]bool{}
	for _, doc := range append([]string{"../README.md"}, pages...) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range inlineLink.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s: no such file", doc, target)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if _, ok := anchors[path]; !ok {
				anchors[path] = headingAnchors(t, path)
			}
			if !anchors[path][frag] {
				t.Errorf("%s links to %s: %s has no heading #%s", doc, target, path, frag)
			}
		}
	}
}

// stripCode blanks fenced code blocks and code spans, where a "](" is code,
// not a link.
func stripCode(text string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			b.WriteString("\n")
			continue
		}
		if fenced {
			b.WriteString("\n")
			continue
		}
		parts := strings.Split(line, "`")
		for i := 0; i < len(parts); i += 2 {
			b.WriteString(parts[i])
			b.WriteString(" ")
		}
	}
	return b.String()
}

// headingAnchors returns the fragments GitHub gives the headings of a
// Markdown file: lower case, spaces to hyphens, punctuation but hyphens and
// underscores dropped.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	fenced := false
	for line := range strings.Lines(string(text)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		// An explicit anchor, <a id="x"></a>, which GitHub keeps, names a
		// place that is no heading (a paragraph of a long section).
		for rest := line; ; {
			_, after, ok := strings.Cut(rest, `<a id="`)
			if !ok {
				break
			}
			id, tail, _ := strings.Cut(after, `"`)
			anchors[id] = true
			rest = tail
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var a strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		anchors[a.String()] = true
	}
	return anchors
}
