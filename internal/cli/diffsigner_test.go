package cli

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmderr"
)

// thumbprint is key's RFC 7638 thumbprint, as diff names signers.
func thumbprint(t *testing.T, key jose.JSONWebKey) string {
	t.Helper()
	tp, err := cardsig.Thumbprint(key.Public())
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// agentAt is a2aCard served at host, with description desc.
func agentAt(host, desc string) string {
	c := strings.Replace(a2aCard, "https://geo.example.com/a2a", "https://"+host+"/a2a", 1)
	return strings.Replace(c, `"Plans routes"`, `"`+desc+`"`, 1)
}

// TestDiffSignerChanged: with --keys, a card whose verifying keys differ
// between the dumps is signer-changed, whatever else changed with it, in
// both formats, the summary, and whether the digests spill or not;
// without keys the same cards are merely changed.
func TestDiffSignerChanged(t *testing.T) {
	f := newSigFixture(t)
	k1, k2 := thumbprint(t, f.k1), thumbprint(t, f.k2)
	sign := func(card string, keys ...jose.JSONWebKey) string {
		for _, k := range keys {
			card = f.sign(t, card, k, cardsig.SignOptions{})
		}
		return card
	}
	rotated := agentAt("rotated.example.com", "Plans routes")
	edited := agentAt("edited.example.com", "Plans routes")
	dropped := agentAt("dropped.example.com", "Plans routes")
	kept := agentAt("kept.example.com", "Plans routes")
	newly := agentAt("newly.example.com", "Plans routes")
	second := agentAt("second.example.com", "Plans routes")
	stranger := agentAt("stranger.example.com", "Plans routes")
	old := []string{
		sign(rotated, f.k1),
		sign(edited, f.k1),
		sign(dropped, f.k1),
		sign(kept, f.k1),
		newly,
		sign(second, f.k1),
		sign(stranger, f.k1),
	}
	new := []string{
		sign(rotated, f.k2),
		sign(agentAt("edited.example.com", "Plans shorter routes"), f.k1),
		dropped,
		sign(kept, f.k1),
		sign(newly, f.k2),
		sign(second, f.k1, f.k2),
		// Signed by a key no one trusts, beside the trusted one: the
		// signers that verify are the same.
		sign(sign(stranger, f.k1), f.stranger),
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "old.ndjson"), []byte(strings.Join(old, "\n")+"\n"))
	writeFile(t, filepath.Join(dir, "new.ndjson"), []byte(strings.Join(new, "\n")+"\n"))

	type signers struct{ old, new []string }
	want := map[string]signers{
		"https://rotated.example.com/a2a": {[]string{k1}, []string{k2}},
		"https://dropped.example.com/a2a": {[]string{k1}, []string{}},
		"https://newly.example.com/a2a":   {[]string{}, []string{k2}},
		"https://second.example.com/a2a":  {[]string{k1}, slices.Sorted(slices.Values([]string{k1, k2}))},
	}
	for _, memory := range []string{"1GiB", "1KiB"} {
		t.Run("memory "+memory, func(t *testing.T) {
			r := runIn(t, dir, "diff", "--keys", f.keys, "--memory", memory, "--format", "jsonl", "--summary", "-", "old.ndjson", "new.ndjson")
			if r.code != cmderr.StatusFailed {
				t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
			}
			out, sum, _ := strings.Cut(r.stdout, "{\n")
			got := map[string]string{}
			for _, rec := range parseDiff(t, out) {
				got[rec.Key] = rec.Change
				w, ok := want[rec.Key]
				if rec.Change != "signer-changed" {
					continue
				}
				if !ok {
					t.Errorf("%s: signer-changed, but its signers did not change", rec.Key)
					continue
				}
				found := false
				for _, c := range rec.Changes {
					if c.Pointer != "/signatures" || c.What != "signer" {
						continue
					}
					found = true
					var o, n []string
					if json.Unmarshal(c.Old, &o) != nil || json.Unmarshal(c.New, &n) != nil {
						t.Fatalf("%s: signers %s -> %s are not arrays of strings", rec.Key, c.Old, c.New)
					}
					if !reflect.DeepEqual(o, w.old) || !reflect.DeepEqual(n, w.new) {
						t.Errorf("%s: signers %v -> %v, want %v -> %v", rec.Key, o, n, w.old, w.new)
					}
				}
				if !found {
					t.Errorf("%s: no /signatures signer change among %+v", rec.Key, rec.Changes)
				}
			}
			for key := range want {
				if got[key] != "signer-changed" {
					t.Errorf("%s: %q, want signer-changed", key, got[key])
				}
			}
			for _, key := range []string{"https://edited.example.com/a2a", "https://stranger.example.com/a2a"} {
				if got[key] != "changed" {
					t.Errorf("%s: %q, want changed: its signers are the same", key, got[key])
				}
			}
			if _, ok := got["https://kept.example.com/a2a"]; ok {
				t.Error("an unchanged card is reported")
			}
			var s struct {
				Diff struct {
					Changed       int64 `json:"changed"`
					SignerChanged int64 `json:"signer_changed"`
					Unchanged     int64 `json:"unchanged"`
					Partitions    int   `json:"partitions"`
				} `json:"diff"`
			}
			if err := json.Unmarshal([]byte("{\n"+sum), &s); err != nil {
				t.Fatalf("summary: %v: %s", err, sum)
			}
			if s.Diff.SignerChanged != 4 || s.Diff.Changed != 2 || s.Diff.Unchanged != 1 {
				t.Errorf("summary %+v, want 4 signer-changed, 2 changed, 1 unchanged", s.Diff)
			}
			if spills := s.Diff.Partitions > 1; spills != (memory == "1KiB") {
				t.Errorf("--memory %s: %d partitions: the test does not cover the path it names", memory, s.Diff.Partitions)
			}
			if !strings.Contains(r.stderr, "4 signer changed") {
				t.Errorf("stderr does not count the signer changes: %s", r.stderr)
			}
		})
	}

	t.Run("text", func(t *testing.T) {
		r := runIn(t, dir, "diff", "--keys", f.keys, "--color", "never", "old.ndjson", "new.ndjson")
		line := ""
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "rotated.example.com") {
				line = l
			}
		}
		if want := "signer-changed url https://rotated.example.com/a2a old.ndjson:1 -> new.ndjson:1 (a2a/1.0): /signatures signer [\"" + k1 + "\"] -> [\"" + k2 + "\"]"; !strings.HasPrefix(line, want) {
			t.Errorf("text line\n%s\nwant it to start\n%s", line, want)
		}
	})

	t.Run("without keys", func(t *testing.T) {
		r := runIn(t, dir, "diff", "--format", "jsonl", "old.ndjson", "new.ndjson")
		for _, rec := range parseDiff(t, r.stdout) {
			if rec.Change == "signer-changed" {
				t.Errorf("%s: signer-changed, but no signature was verified", rec.Key)
			}
		}
		if strings.Contains(r.stderr, "signer changed") {
			t.Errorf("a diff that verified nothing counts signer changes: %s", r.stderr)
		}
	})
}
