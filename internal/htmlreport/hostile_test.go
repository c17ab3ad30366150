package htmlreport

import (
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/summary"
)

// manyProfiles is a summary of n profiles: each of its own dialect, or
// all versions of one.
func manyProfiles(n int, ownDialect bool) *summary.Summary {
	s := &summary.Summary{Counts: summary.Counts{Profiles: map[string]int64{}}, ProfileVerdicts: map[string]summary.Verdicts{}}
	for i := range n {
		name := fmt.Sprintf("a2a/%d", i)
		if ownDialect {
			name = fmt.Sprintf("d%d/1", i)
		}
		s.Profiles[name] = int64(3 + i%7)
		s.ProfileVerdicts[name] = summary.Verdicts{Valid: 1, Invalid: int64(2 + i%7)}
		s.Records += int64(3 + i%7)
		s.Valid++
		s.Invalid += int64(2 + i%7)
	}
	return s
}

// allocated is the bytes Write allocates for s: the work it does, counted
// without a clock.
func allocated(s *summary.Summary) (bytes uint64, page int) {
	var w countingWriter
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Write(&w, s, nil); err != nil {
		panic(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, int(w)
}

type countingWriter int

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = new(countingWriter)

// TestLinearInProfiles: a summary of four times the profiles costs the
// report no more than about four times the work (bytes allocated, which
// grew sixteenfold while the versions of a dialect were joined one string
// at a time), and the page stays bounded.
func TestLinearInProfiles(t *testing.T) {
	const n = 2000
	for _, ownDialect := range []bool{false, true} {
		small, _ := allocated(manyProfiles(n, ownDialect))
		large, page := allocated(manyProfiles(4*n, ownDialect))
		if ratio := float64(large) / float64(small); ratio > 6 {
			t.Errorf("own dialects %v: %d profiles allocate %d bytes, %d profiles %d: %.1f times for 4 times the profiles",
				ownDialect, n, small, 4*n, large, ratio)
		}
		if page > 512<<10 {
			t.Errorf("own dialects %v: a page of %d bytes for %d profiles", ownDialect, page, 4*n)
		}
	}
}

// BenchmarkManyProfiles: go test -run '^$' -bench ManyProfiles ./internal/htmlreport/
func BenchmarkManyProfiles(b *testing.B) {
	s := manyProfiles(40000, false)
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, s, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongValuesCut: a value of megabytes (an 8.4 MB key, file name or
// message) is cut, saying how long it was.
func TestLongValuesCut(t *testing.T) {
	long := "https://x.example/" + strings.Repeat("a", 8_400_000)
	s := &summary.Summary{Counts: summary.Counts{Records: 1, Invalid: 1, Profiles: map[string]int64{"a2a/1.0": 1}},
		WorstInputs: []summary.InputCount{{Input: long, Records: 1, Invalid: 1}}}
	d := brokeDiff(Change{
		Change: "broke", Key: long, Profile: "a2a/1.0", Old: &Side{Input: long, Line: 1}, New: &Side{Input: "n", Line: 2},
		Changes: []Member{{Pointer: "/" + long, What: "x", Old: []byte(`"` + long + `"`), New: []byte(`1`)}},
		Errors:  []Error{{Rule: "a2a.url", Pointer: "/url", Message: long}},
	})
	page := render(t, s, d)
	if len(page) > 256<<10 {
		t.Errorf("the page is %d bytes", len(page))
	}
	if n := strings.Count(page, "… (8.4 MB, cut)"); n < 5 {
		t.Errorf("%d values say they were cut from 8.4 MB, want the key, inputs, pointer and message", n)
	}
}

// TestHiddenCharactersShown: a bidi override, zero-width or tag character
// in any name a summary or diff carries reaches the page as a visible
// mark, never raw, and every such name is isolated from the text around
// it.
func TestHiddenCharactersShown(t *testing.T) {
	s, d := hostileFixture()
	page := render(t, s, d)
	for _, r := range []string{rlo, "\u200b", "\U000E0041", "\u2066"} {
		if strings.Contains(page, r) {
			t.Errorf("the page holds %U raw", []rune(r)[0])
		}
	}
	for _, mark := range []string{"&lt;U+202E&gt;</span>", "&lt;U+200B&gt;</span>", "&lt;U+E0041&gt;</span>", "&lt;U+2066&gt;</span>"} {
		if !strings.Contains(page, `<span class="hidden-char"`) || !strings.Contains(page, mark) {
			t.Errorf("the page does not show %s", mark)
		}
	}
	// Outside the SVG charts, each name sits in a <bdi>: strip them, and
	// no mark is left.
	body := regexp.MustCompile(`(?s)<svg.*?</svg>`).ReplaceAllString(page, "")
	body = regexp.MustCompile(`(?s)<bdi>.*?</bdi>`).ReplaceAllString(body, "")
	if i := strings.Index(body, "U+202E"); i >= 0 {
		t.Errorf("a name outside <bdi>: %q", body[max(0, i-200):i+20])
	}
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-`) {
		t.Error("the page has no strict Content-Security-Policy")
	}
}

const rlo = "\u202e"

// hostileFixture is a summary and diff whose every name holds a
// RIGHT-TO-LEFT OVERRIDE, and some zero-width, tag and isolate characters.
func hostileFixture() (*summary.Summary, *Diff) {
	evil := "evil" + rlo + "txt.exe" + "\u200b" + "\U000E0041" + "\u2066"
	s := &summary.Summary{Counts: summary.Counts{Records: 2, Valid: 1, Invalid: 1, Rules: map[string]int64{"rule" + rlo: 1}, Profiles: map[string]int64{"a2a" + rlo + "/1.0" + rlo: 2}},
		ProfileVerdicts: map[string]summary.Verdicts{"a2a" + rlo + "/1.0" + rlo: {Valid: 1, Invalid: 1}},
		WorstInputs:     []summary.InputCount{{Input: evil, Records: 2, Invalid: 1}}}
	d := brokeDiff(Change{
		Change: "broke", Key: evil, KeyKind: "url" + rlo, Profile: "a2a" + rlo, Old: &Side{Input: evil, Line: 1}, New: &Side{Input: evil, Line: 2},
		Changes: []Member{{Pointer: "/" + rlo, What: "w" + rlo, Old: []byte(`"` + rlo + `"`), New: []byte(`1`)}},
		Errors:  []Error{{Rule: "r" + rlo, Pointer: "/" + rlo, Message: "m" + rlo}},
	})
	return s, d
}

// brokeDiff is a diff of the one record c, a key that broke, as ReadDiff
// lists it.
func brokeDiff(c Change) *Diff {
	return &Diff{Counts: map[string]int64{"broke": 1}, Records: 1, Listed: map[string][]Listed{"broke": {c.listed()}}}
}

// TestHiddenCharactersBounded: a name is cut at maxText characters, but
// each hidden one in it became a marked-up <U+200B> of about a hundred
// bytes: a diff of 17 MB whose names were zero-width spaces made a page
// of 208 MB. A hidden character now counts as the characters its mark
// shows, so a record's row is bounded as one of plain text is.
func TestHiddenCharactersBounded(t *testing.T) {
	z := strings.Repeat("\u200b", 300)
	q := strconv.Quote(z)
	var in strings.Builder
	const perKind = 5
	for _, kind := range changeKinds {
		for i := range perKind {
			changes := strings.TrimSuffix(strings.Repeat(`{"pointer":"/`+z+`","what":"`+z+`","old":`+strconv.Quote(q)+`,"new":`+strconv.Quote(q)+`},`, 6), ",")
			errs := strings.TrimSuffix(strings.Repeat(`{"rule":"`+z+`","pointer":"`+z+`","message":"`+z+`"},`, 6), ",")
			fmt.Fprintf(&in, `{"change":%q,"key":"%s%d","key_kind":"%s","profile":"%s","old":{"input":"%s","line":1},"new":{"input":"%s","line":2},"changes":[%s],"errors":[%s]}`+"\n",
				kind, z, i, z, z, z, z, changes, errs)
		}
	}
	d, err := ReadDiff(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	s := &summary.Summary{Counts: summary.Counts{Records: 1, Valid: 1, Profiles: map[string]int64{"a2a/1.0": 1}}}
	page := render(t, s, d)
	rows := len(changeKinds) * perKind
	// A row of 35 names cut at 200 characters, of text that escapes to
	// at most 6 bytes a character (&quot;), is about 42 kB.
	if perRow := len(page) / rows; perRow > 64<<10 {
		t.Errorf("%d bytes of page per listed record of hidden characters (%d in all), more than a row of plain text takes", perRow, len(page))
	}
	if !strings.Contains(page, "&lt;U+200B&gt;") {
		t.Error("the hidden characters are not shown")
	}
}
