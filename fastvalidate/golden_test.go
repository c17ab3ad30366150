package fastvalidate

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
)

var (
	update          = flag.Bool("update", false, "rewrite the golden files under testdata/ from the current output")
	updateGenerated = flag.Bool("update-generated", false, "rewrite the generated golden inputs testdata/golden/gen-*.json from the corpus generator (then run -update)")
)

// goldenProfiles are the profiles each golden input is judged by.
var goldenProfiles = []string{"agentcard", "agentcard-schema"}

// renderFindings writes the verdict of each profile on one card: a header
// line per profile, then one line per finding as
// rule<TAB>severity<TAB>path<TAB>message.
func renderFindings(t *testing.T, card []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, profile := range goldenProfiles {
		v, err := New(profile, WithClock(fixedClock))
		if err != nil {
			fmt.Fprintf(&out, "# %s: unavailable\n", profile)
			continue
		}
		r := v.Validate(card)
		verdict := "valid"
		if !r.Valid() {
			verdict = "invalid"
		}
		fmt.Fprintf(&out, "# %s: %s, %d errors, %d warnings\n", profile, verdict, r.Errors(), r.Warnings())
		for _, f := range r.Findings() {
			fmt.Fprintf(&out, "%s\t%s\t%s\t%s\n", f.Code, f.Severity, f.Path, f.Message())
		}
	}
	return out.Bytes()
}

// TestGolden judges every testdata/golden/*.json card and compares the
// findings with the .golden file beside it. Run with -update to rewrite
// them, then review the diff by hand: a golden file is a claim about the
// spec, not a snapshot.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			card, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := renderFindings(t, card)
			compareGolden(t, strings.TrimSuffix(in, ".json")+".golden", got)
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("findings differ from %s (rerun with -update and review the diff):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestGoldenGenerated writes generated golden inputs when asked to with
// -update-generated. They are kept as files, not made on each run, so that
// a change to the generator never silently changes what the goldens claim.
// Each file name carries the defect the generator applied.
func TestGoldenGenerated(t *testing.T) {
	if !*updateGenerated {
		t.Skip("run with -update-generated to rewrite testdata/golden/gen-*.json")
	}
	old, _ := filepath.Glob(filepath.Join("testdata", "golden", "gen-*"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	for i, dialect := range []string{"agentcard", "agentcard-schema"} {
		g, err := corpus.New(corpus.Options{Seed: uint64(40 + i), Dialects: []string{dialect}, DefectRate: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		for n := range 12 {
			c := g.Next()
			label := "valid"
			if c.Defect != "" {
				label = strings.NewReplacer("/", "_", ".", "_").Replace(c.Defect)
			} else if c.Variant != "" {
				label = "valid_" + c.Variant
			}
			name := fmt.Sprintf("gen-%s-%02d-%s.json", dialect, n, label)
			if err := os.WriteFile(filepath.Join("testdata", "golden", name), append(c.JSON, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
