package cardsig

import (
	"strings"
	"testing"
)

// TestLocator_PlacesEntriesAndMembers: each outcome is placed at its
// entry, or at the member at fault, and its Pointer names that member;
// a missing member is placed at the entry that lacks it, as the
// validator places a missing member at the object.
func TestLocator_PlacesEntriesAndMembers(t *testing.T) {
	v := newVerifier(t, testKeys(t))
	const good = `"protected":"eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS1FZERTQSJ9","signature":"AAAA"`
	card := `{"name":"n",` + "\n" + `  "signatures" : [ {` + good + `} ,` + "\n" +
		`    {"protected":"!!","signature":"AAAA"},` +
		`{"signature":"AAAA"},` +
		`{"protected":"eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS1FZERTQSJ9","signature":"not base64"},` +
		`{"protected":"eyJhbGciOiJFZERTQSIsImtpZCI6ImtleS1FZERTQSJ9","signature":"AAAA","header":[]},` +
		`7]}`
	res, err := v.Verify([]byte(card))
	if err != nil {
		t.Fatal(err)
	}
	entry := func(n int) int { // the offset of the n-th entry's opening byte
		i := strings.Index(card, "[") + 1
		for ; n >= 0; n-- {
			i += strings.IndexAny(card[i:], "{7")
			if n > 0 {
				i += strings.Index(card[i:], "}") + 1
			}
		}
		return i
	}
	member := func(n int, name string) int {
		at := entry(n)
		return at + strings.Index(card[at:], `"`+name+`":`) + len(name) + 3
	}
	want := []struct {
		pointer string
		offset  int
	}{
		{"/signatures/0", entry(0)},                         // does not verify with the key
		{"/signatures/1/protected", member(1, "protected")}, // not base64url
		{"/signatures/2/protected", entry(2)},               // missing
		{"/signatures/3/signature", member(3, "signature")},
		{"/signatures/4/header", member(4, "header")},
		{"/signatures/5", entry(5)}, // not an object
	}
	if len(res.Signatures) != len(want) {
		t.Fatalf("%d signatures, want %d", len(res.Signatures), len(want))
	}
	l := NewLocator([]byte(card))
	for i, w := range want {
		s := &res.Signatures[i]
		if got, at := s.Pointer(), l.Offset(s); got != w.pointer || at != w.offset {
			t.Errorf("signature %d (%s): at %s, offset %d (%q); want %s, %d (%q)", i, s.Reason, got, at, card[at:min(at+8, len(card))],
				w.pointer, w.offset, card[w.offset:min(w.offset+8, len(card))])
		}
	}
	if got, wantAt := l.Signatures(), strings.Index(card, "["); got != wantAt {
		t.Errorf("signatures member at %d, want %d", got, wantAt)
	}
}

// TestLocator_NoSignaturesArray: a signatures member that is not an array
// is the one entry Verify judges, and a card without one has its
// signatures placed at its start.
func TestLocator_NoSignaturesArray(t *testing.T) {
	card := []byte(` {"a":{"signatures":[]},"signatures":{"protected":1}}`)
	l := NewLocator(card)
	at := strings.Index(string(card), `{"protected"`)
	if got := l.Offset(&Signature{Index: 0, Member: "protected"}); got != at+len(`{"protected":`) {
		t.Errorf("member of a lone entry at %d, want %d", got, at+len(`{"protected":`))
	}
	if got := l.Signatures(); got != at {
		t.Errorf("signatures member at %d, want %d", got, at)
	}
	if got := NewLocator([]byte("\n {}")).Signatures(); got != 2 {
		t.Errorf("a card without signatures has them at %d, want its start, 2", got)
	}
	if got := NewLocator([]byte(`{"signatures":[{}]}`)).Offset(&Signature{Index: 3}); got != len(`{"signatures":`) {
		t.Errorf("an entry past the array's end at %d, want the array's", got)
	}
}

// FuzzLocator: any text, JSON or not, gets offsets inside it and no panic.
func FuzzLocator(f *testing.F) {
	f.Add([]byte(`{"signatures":[{"protected":"x"},{}]}`), 1, "protected")
	f.Add([]byte(`{"signatures":{"header":[]}}`), 0, "header")
	f.Add([]byte(`{"signatures" `), 0, "")
	f.Add([]byte(`{"signatures":[{"protected"`), 0, "protected")
	f.Fuzz(func(t *testing.T, card []byte, index int, member string) {
		l := NewLocator(card)
		if at := l.Offset(&Signature{Index: index, Member: member}); at < 0 || at > len(card) {
			t.Errorf("offset %d outside a card of %d bytes", at, len(card))
		}
		if at := l.Signatures(); at < 0 || at > len(card) {
			t.Errorf("signatures at %d outside a card of %d bytes", at, len(card))
		}
	})
}

// TestTextLocator_EmbeddedCard: a card given as a JSON string holding it
// is verified decoded and placed in the string's text: an entry's brace at
// its own byte, a member's opening quote at the backslash of its \",
// past escapes and a surrogate pair before them.
func TestTextLocator_EmbeddedCard(t *testing.T) {
	v := newVerifier(t, testKeys(t))
	card := `{"name":"😀 é\\","signatures":[{"protected":"!!","signature":"AAAA"}]}`
	// The string's text: the emoji as a surrogate pair, é as \u00e9, the
	// quotes and the backslash escaped.
	text := []byte("\n  " + `"{\"name\":\"\ud83d\ude00 \u00e9\\\\\",\"signatures\":[{\"protected\":\"!!\",\"signature\":\"AAAA\"}]}"`)
	decoded, embedded := Unembed(text)
	if !embedded || string(decoded) != card {
		t.Fatalf("Unembed: %q, %v; want the card, true", decoded, embedded)
	}
	res, err := v.Verify(decoded)
	if err != nil || len(res.Signatures) != 1 {
		t.Fatalf("Verify: %v, %+v", err, res)
	}
	l := NewTextLocator(text)
	if at := l.Offset(&res.Signatures[0]); !strings.HasPrefix(string(text[at:]), `\"!!\"`) {
		t.Errorf("/signatures/0/protected at %d: %q, want the \\\" of its value", at, text[at:min(at+8, len(text))])
	}
	entry := res.Signatures[0]
	entry.Member = ""
	if at := l.Offset(&entry); !strings.HasPrefix(string(text[at:]), `{\"protected`) {
		t.Errorf("/signatures/0 at %d: %q, want its brace", at, text[at:min(at+8, len(text))])
	}
	if at := l.Signatures(); !strings.HasPrefix(string(text[at:]), `[{`) {
		t.Errorf("signatures at %d: %q, want its bracket", at, text[at:min(at+8, len(text))])
	}
	if _, embedded := Unembed([]byte(card)); embedded {
		t.Error("Unembed: a card given as itself read as embedded")
	}
}
