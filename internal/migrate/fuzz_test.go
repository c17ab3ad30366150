package migrate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// FuzzMigrate holds the position finder and the splice editor to any
// input: no panic, ever; and for a card the a2a profile accepts, every
// card migrated is JSON, and a second 0.3 -> 1.0 -> 0.3 round trip gives
// the same bytes as the first (what a round trip may change, it changes
// once). Seeds: the test cards, their golden migrations, and cards of the
// sample corpus of every release.
func FuzzMigrate(f *testing.F) {
	for _, dir := range []string{"testdata/cards", "testdata/golden"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil || len(names) == 0 {
			f.Fatalf("no seeds in %s: %v", dir, err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for i, card := range sampleCards(f) {
		if i%50 == 0 {
			f.Add(card)
		}
	}
	f.Add([]byte(`{"url":"https://a.example","security":[{"k":[]}],"securitySchemes":{"k":{"type":"apiKey"}}}`))
	f.Add([]byte(`{"supportedInterfaces":[{"url":"x"}],"securitySchemes":{"k":{"oauth2SecurityScheme":{"flows":{"deviceCode":{}}}}}}`))

	up := mustNew(f, Options{To: V10, DropSignatures: true})
	down := mustNew(f, Options{To: V03, DropSignatures: true})
	detect := fastvalidate.MustNew("a2a")
	f.Fuzz(func(t *testing.T, card []byte) {
		if n, err := locate(card); err == nil && n == nil {
			t.Fatal("locate gave neither a value nor an error")
		}
		res := detect.Validate(card)
		a2a := res.Detected && res.Valid()
		var rec Record
		for _, m := range []*Migrator{up, down} {
			out := m.Migrate(nil, card, &rec)
			if rec.Status == StatusRefused || rec.Status == StatusUnchanged {
				if !bytes.Equal(out, card) {
					t.Fatalf("a %s card was changed:\n%s\n->\n%s", rec.Status, card, out)
				}
				continue
			}
			if a2a && !json.Valid(out) {
				t.Fatalf("migrated to %s, the card is not JSON:\n%s\n->\n%s", m.opts.To, card, out)
			}
		}
		if !a2a || res.Profile != V03 {
			return
		}
		first, ok := roundTrip(up, down, card)
		if !ok {
			return
		}
		second, ok := roundTrip(up, down, first)
		if !ok {
			t.Fatalf("the card back from 1.0 does not migrate again:\n%s\n->\n%s", card, first)
		}
		if !bytes.Equal(first, second) {
			t.Fatalf("a second round trip differs from the first:\n%s\n-> first\n%s\n-> second\n%s", card, first, second)
		}
	})
}

// roundTrip migrates a card to 1.0 and back; ok is false when either
// step does not give a valid card.
func roundTrip(up, down *Migrator, card []byte) (back []byte, ok bool) {
	var r1, r2 Record
	v10 := up.Migrate(nil, card, &r1)
	if r1.Status != StatusMigrated || !r1.ValidAfter {
		return nil, false
	}
	back = down.Migrate(nil, v10, &r2)
	return back, r2.Status == StatusMigrated && r2.ValidAfter
}
