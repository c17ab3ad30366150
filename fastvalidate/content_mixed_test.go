package fastvalidate

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// mixesScriptsByRune is mixesScripts as it was before its run of ASCII
// letters: every character decoded by utf8.DecodeRune and looked up.
func mixesScriptsByRune(text []byte) bool {
	var set scriptSet
	letters := 0
	x := scriptIndex()
	for i := 0; i <= len(text); {
		var r rune = ' '
		size := 1
		if i < len(text) {
			r, size = utf8.DecodeRune(text[i:])
		}
		i += size
		if s := x.scriptOf(r); s != nil {
			set.add(s)
			letters++
			continue
		}
		if x.inherited(r) && i < len(text) {
			continue
		}
		if letters >= 3 && !set.moderatelyRestrictive() {
			return true
		}
		set, letters = scriptSet{}, 0
	}
	return false
}

// mixedScriptPieces are what the names of TestMixesScriptsAsByRune are
// made of: ASCII letters in runs, word breaks, a combining mark, letters
// of scripts Latin may and may not mix with, and broken UTF-8.
var mixedScriptPieces = []string{"a", "Pay", "pal", "Z", " ", "-", "7", "_", "\u0301", "é", "ø",
	"а", "Мир", "α", "Ωμέγα", "分析", "デタ", "ひ", "한", "ㄅ", "Ꭺ", "ꓑ", "\xff", "\xe3\x81", "😀", "\u200d"}

// TestMixesScriptsAsByRune holds mixesScripts to its character-by-
// character form on names made of mixedScriptPieces, both verdicts seen.
func TestMixesScriptsAsByRune(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	verdicts := map[bool]int{}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(mixedScriptPieces[rng.IntN(len(mixedScriptPieces))])
		}
		name := []byte(b.String())
		got, want := mixesScripts(name), mixesScriptsByRune(name)
		if got != want {
			t.Fatalf("mixesScripts(%q) = %v, by rune %v", name, got, want)
		}
		verdicts[got]++
	}
	if verdicts[true] == 0 || verdicts[false] == 0 {
		t.Fatalf("verdicts %v: the names should both mix scripts and not", verdicts)
	}
}

func FuzzMixesScripts(f *testing.F) {
	for _, s := range mixedScriptPieces {
		f.Add([]byte("x" + s + "Pal"))
	}
	f.Fuzz(func(t *testing.T, name []byte) {
		if got, want := mixesScripts(name), mixesScriptsByRune(name); got != want {
			t.Fatalf("mixesScripts(%q) = %v, by rune %v", name, got, want)
		}
	})
}
