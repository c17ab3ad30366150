package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
)

// maxFuzzInput bounds fuzz inputs: big enough for any card shape, small
// enough that a run explores shapes rather than sizes.
const maxFuzzInput = 64 << 10

var fixedNow = time.Date(2026, 4, 23, 0, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

// How a finding's path must resolve in the card, by rule: a missing-member
// rule names a member absent from an existing object; goal.goal-id names
// either a missing goal_id or one of the wrong type. Every other rule names
// a value that exists.
const (
	pathExists = iota
	pathMissing
	pathEither
)

var pathRules = map[string]int{"field.required": pathMissing, "schema.required": pathMissing, "goal.goal-id": pathEither}

// unwrapsEmbedded reports whether a profile reads a card given as a JSON
// string holding it (the draft's section 3 form).
func unwrapsEmbedded(profile string) bool { return profile == "agentcard" || profile == "auto" }

// checkResult asserts the properties every Result must have for doc,
// whatever the profile: the strict layer agrees with the reference, the
// verdict agrees with the findings, and every path is an RFC 6901 pointer
// into the card.
func checkResult(t *testing.T, profile string, doc []byte, r *fastvalidate.Result) {
	t.Helper()
	refOK, why := strictReference(doc, fastvalidate.DefaultMaxDepth, unwrapsEmbedded(profile))
	gotOK, rule := strictVerdict(r)
	if refOK != gotOK {
		t.Fatalf("%s: strict layer says ok=%v (%s), reference says ok=%v (%s)\ninput: %q", profile, gotOK, rule, refOK, why, doc)
	}
	errs, warns := 0, 0
	for _, f := range r.Findings() {
		// A folded finding stands for Count occurrences of one fault.
		n := max(f.Count, 1)
		switch f.Severity {
		case fastvalidate.SeverityError:
			errs += n
		case fastvalidate.SeverityWarning:
			warns += n
		default:
			t.Fatalf("finding %v has severity %d", f, f.Severity)
		}
		if f.Code.String() == "unknown" {
			t.Fatalf("finding with unregistered code %d", f.Code)
		}
		if err := checkPointerSyntax(f.Path); err != nil {
			t.Fatalf("finding %s: path %q: %v\ninput: %q", f.Code, f.Path, err, doc)
		}
	}
	if len(r.Findings()) < 100 && (errs != r.Errors() || warns != r.Warnings()) {
		t.Fatalf("Errors()/Warnings() = %d/%d, findings hold %d/%d", r.Errors(), r.Warnings(), errs, warns)
	}
	if r.Valid() != (r.Errors() == 0) {
		t.Fatalf("Valid() = %v with %d errors", r.Valid(), r.Errors())
	}
	if !gotOK {
		if len(r.Findings()) != 1 || r.Valid() {
			t.Fatalf("strict failure must be the only finding: %v", r.Findings())
		}
		return
	}
	// The document is strict JSON: every path must resolve in it.
	tree, err := decodeCard(doc, unwrapsEmbedded(profile))
	if err != nil {
		t.Fatalf("reference accepts the input but it does not decode: %v", err)
	}
	for _, f := range r.Findings() {
		err := resolvePointer(tree, f.Path, pathRules[f.Code.String()] == pathMissing)
		if pathRules[f.Code.String()] == pathEither && err != nil {
			err = resolvePointer(tree, f.Path, true)
		}
		if err != nil {
			t.Fatalf("finding %s at %q: %v\ninput: %q", f.Code, f.Path, err, doc)
		}
	}
}

// decodeCard decodes a strict JSON document, and the content of a
// document that is a string when the profile reads that form.
func decodeCard(doc []byte, unwrap bool) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok && unwrap {
		// Text that is no JSON and opens no object leaves the string a
		// string, as strictReference says.
		if t := strings.TrimLeft(s, " \t\r\n"); !json.Valid([]byte(s)) && (t == "" || t[0] != '{') {
			return v, nil
		}
		dec = json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func checkPointerSyntax(p string) error {
	if p == "" {
		return nil
	}
	if p[0] != '/' {
		return fmt.Errorf("does not start with /")
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || p[i+1] != '0' && p[i+1] != '1') {
			return fmt.Errorf("~ not followed by 0 or 1 at %d", i)
		}
	}
	return nil
}

// resolvePointer walks an RFC 6901 pointer through a decoded document. With
// missing set, the last token must name a member absent from an existing
// object instead.
func resolvePointer(v any, p string, missing bool) error {
	if p == "" {
		if missing {
			return fmt.Errorf("a missing member cannot be the document")
		}
		return nil
	}
	tokens := strings.Split(p[1:], "/")
	for i, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(tokens)-1
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[tok]
			if last && missing {
				if ok {
					return fmt.Errorf("member %q is reported missing but present", tok)
				}
				return nil
			}
			if !ok {
				return fmt.Errorf("no member %q", tok)
			}
			v = next
		case []any:
			if last && missing {
				return fmt.Errorf("a missing member's parent is an array")
			}
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(x) || strconv.Itoa(n) != tok {
				return fmt.Errorf("bad array index %q for length %d", tok, len(x))
			}
			v = x[n]
		default:
			return fmt.Errorf("token %q steps into a %T", tok, v)
		}
	}
	if missing {
		return fmt.Errorf("path of a missing member resolves")
	}
	return nil
}

// checkReuse asserts that a Validator's Result does not depend on what it
// validated before: the reused buffers hold no state across cards.
func checkReuse(t *testing.T, v, fresh *fastvalidate.Validator, doc, other []byte) {
	t.Helper()
	want := render(fresh.Validate(doc))
	v.Validate(other)
	if got := render(v.Validate(doc)); got != want {
		t.Fatalf("result depends on the previous card:\n after other: %s\n fresh:       %s\ninput: %q", got, want, doc)
	}
}

func render(r *fastvalidate.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "valid=%v errors=%d warnings=%d", r.Valid(), r.Errors(), r.Warnings())
	for _, f := range r.Findings() {
		fmt.Fprintf(&b, "|%s %s %q @%d %s", f.Code, f.Severity, f.Path, f.Offset, f.Message())
	}
	return b.String()
}
