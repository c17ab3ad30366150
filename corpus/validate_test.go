package corpus_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
)

// clock pins "now" after every generated ULID timestamp, so the verdicts
// do not depend on when the test runs.
var clock = fastvalidate.WithClock(func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) })

// TestVerdicts runs generated cards of every dialect through the profile
// they are meant for: a valid card must pass, and a defective one must get
// an error of its rule and of no other rule. A dialect whose profile does
// not exist yet is skipped, so its check starts the day the profile lands.
func TestVerdicts(t *testing.T) {
	for _, dialect := range corpus.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			profile := corpus.ProfileOf(dialect)
			v, err := fastvalidate.New(profile, clock)
			if errors.Is(err, fastvalidate.ErrUnknownProfile) {
				t.Skipf("fastvalidate has no profile %q yet", profile)
			}
			if err != nil {
				t.Fatal(err)
			}
			// Every defect kind at least 8 times, plus a valid card mix.
			cards := generate(t, corpus.Options{Seed: 7, Dialects: []string{dialect}}, 800)
			for _, kind := range corpus.DefectKinds(dialect) {
				cards = append(cards, generate(t, corpus.Options{Seed: 11, Dialects: []string{dialect}, DefectRate: 1, Defects: []string{kind}}, 8)...)
			}
			failures := 0
			for _, c := range cards {
				if msg := judge(v, c); msg != "" {
					failures++
					if failures <= 20 {
						t.Errorf("%s", msg)
					}
				}
			}
			if failures > 20 {
				t.Errorf("... and %d more", failures-20)
			}
		})
	}
}

// judge returns "" when the validator's verdict on c is the intended one,
// else a description of the disagreement.
func judge(v *fastvalidate.Validator, c corpus.Card) string {
	res := v.Validate(c.JSON)
	var other []string
	hit := false
	for _, f := range res.Findings() {
		if f.Severity != fastvalidate.SeverityError {
			continue
		}
		if f.Code.String() == c.Rule {
			hit = true
		} else {
			other = append(other, fmt.Sprintf("%s at %q: %s", f.Code, f.Path, f.Message()))
		}
	}
	// The result names the profile that judged, a version for A2A.
	judged := c.Profile
	if judged == "a2a" {
		judged = c.Dialect
	}
	switch {
	case c.Defect == "" && res.Profile != judged:
		return fmt.Sprintf("valid %s card judged as %q\n%s", c.Dialect, res.Profile, excerpt(c.JSON))
	case c.Defect == "" && !res.Valid():
		return fmt.Sprintf("valid card (variant %q) rejected: %s\n%s", c.Variant, strings.Join(other, "; "), excerpt(c.JSON))
	case c.Defect != "" && !hit:
		return fmt.Sprintf("defect %s: no %s error (others: %s)\n%s", c.Defect, c.Rule, strings.Join(other, "; "), excerpt(c.JSON))
	case c.Defect != "" && len(other) > 0:
		return fmt.Sprintf("defect %s: errors besides %s: %s\n%s", c.Defect, c.Rule, strings.Join(other, "; "), excerpt(c.JSON))
	}
	return ""
}

func excerpt(b []byte) string {
	if len(b) > 2000 {
		return fmt.Sprintf("%q…", b[:2000])
	}
	return fmt.Sprintf("%q", b)
}

func generate(t testing.TB, opts corpus.Options, n int) []corpus.Card {
	t.Helper()
	g, err := corpus.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cards := make([]corpus.Card, n)
	for i := range cards {
		cards[i] = g.Next()
	}
	return cards
}

// TestNoContentFindings holds generated cards to what honest cards look
// like to the content rules: none of 4,000 cards of every dialect, defects
// included, gets a content.* finding but content.link-scheme, which the
// defect that misnames a stdio endpoint's protocol brings with it (its
// file: URL then leads nowhere a stdio endpoint's does). Names mixing
// scripts within a word, the shape of a homoglyph spoof, were 3% of a
// generated dump's cards.
func TestNoContentFindings(t *testing.T) {
	validators := map[string]*fastvalidate.Validator{}
	for _, c := range generate(t, corpus.Options{Seed: 3, Dialects: corpus.Dialects(), DefectRate: 0.05}, 4000) {
		v := validators[c.Profile]
		if v == nil {
			var err error
			if v, err = fastvalidate.New(c.Profile, clock); err != nil {
				t.Fatal(err)
			}
			validators[c.Profile] = v
		}
		for _, f := range v.Validate(c.JSON).Findings() {
			if strings.HasPrefix(f.Rule(), "content.") && f.Code != fastvalidate.CodeContentLinkScheme {
				t.Errorf("%s card: %s: %s: %s", c.Dialect, f.Rule(), f.Path, f.Message())
			}
		}
	}
}
