package visible

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestAppend(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":                 "plain text",
		"evil\u202etxt.exe":          "evil<U+202E>txt.exe",
		"a\u2066b\u2069c":            "a<U+2066>b<U+2069>c",
		"zero\u200bwidth\u200d":      "zero<U+200B>width<U+200D>",
		"tag\U000E0041\U000E007F":    "tag<U+E0041><U+E007F>",
		"vs\ufe0f\U000E0100":         "vs<U+FE0F><U+E0100>",
		"soft\u00adhyphen\u2028line": "soft<U+00AD>hyphen<U+2028>line",
		"c1\u0085":                   "c1<U+0085>",
		"ascii\x1bcontrol":           "ascii\x1bcontrol", // the format's own escape
		"bad\xffutf8":                "bad\xffutf8",
		"وكيل التلخيص 要約 émoji 👍🏽": "وكيل التلخيص 要約 émoji 👍🏽",
	} {
		if got := string(Append(nil, in)); got != want {
			t.Errorf("Append(%q) = %q, want %q", in, got, want)
		}
		if got := Has(in); got != (want != in) {
			t.Errorf("Has(%q) = %v", in, got)
		}
		if got := string(Append(nil, []byte(in))); got != want {
			t.Errorf("Append([]byte %q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodePoint(t *testing.T) {
	for r, want := range map[rune]string{0x7: "<U+0007>", 0x202E: "<U+202E>", 0xE0041: "<U+E0041>", 0x10FFFF: "<U+10FFFF>"} {
		if got := CodePoint(r); got != want {
			t.Errorf("CodePoint(%#x) = %q, want %q", r, got, want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	in := "{\"a\u202eb\":[\"\u200b\U000E0041\u0085\u2028\",\"é ☃ 𝄞\"]}"
	got := string(EscapeJSON([]byte(in)))
	want := `{"a\u202eb":["\u200b\udb40\udc41\u0085\u2028","é ☃ 𝄞"]}`
	if got != want {
		t.Errorf("EscapeJSON(%q) = %s, want %s", in, got, want)
	}
	var back, orig any
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(in), &orig); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, orig) {
		t.Errorf("decodes to %q, want %q", back, orig)
	}
	plain := []byte(`{"a":"é"}`)
	if got := EscapeJSON(plain); &got[0] != &plain[0] {
		t.Error("text without hidden characters was copied")
	}
}

func TestQuoteCut(t *testing.T) {
	for _, c := range []struct {
		s     string
		limit int
		want  string
	}{
		{"kid", 3, `"kid"`},
		{"abcd", 3, `"abc"… (4 bytes)`},
		{"aé", 2, `"a"… (3 bytes)`}, // not inside é
		{"\n\x00", 8, `"\n\x00"`},
	} {
		if got := QuoteCut(c.s, c.limit); got != c.want {
			t.Errorf("QuoteCut(%q, %d) = %s, want %s", c.s, c.limit, got, c.want)
		}
	}
}
