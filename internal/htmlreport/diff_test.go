package htmlreport

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

func TestReadDiff(t *testing.T) {
	rec := func(kind, key string) string {
		return fmt.Sprintf(`{"change":%q,"key":%q,"key_kind":"url","profile":"a2a/1.0","new":{"input":"n","line":1,"valid":true}}`, kind, key)
	}
	many := make([]string, 0, MaxListed+7)
	for i := range MaxListed + 7 {
		many = append(many, rec("added", fmt.Sprint(i)))
	}
	for _, tc := range []struct {
		name   string
		in     string
		counts map[string]int64
		listed map[string]int
		skip   int64
		err    string
	}{
		{"empty", "", map[string]int64{}, map[string]int{}, 0, ""},
		{"each kind, CRLF and blank lines", strings.Join([]string{rec("added", "a"), "", rec("broke", "b"), rec("fixed", "c"), rec("changed", "d"), rec("removed", "e")}, "\r\n") + "\r\n",
			map[string]int64{"added": 1, "broke": 1, "fixed": 1, "changed": 1, "removed": 1},
			map[string]int{"added": 1, "broke": 1, "fixed": 1, "changed": 1, "removed": 1}, 0, ""},
		{"no final newline", rec("added", "a"), map[string]int64{"added": 1}, map[string]int{"added": 1}, 0, ""},
		{"unknown members and kinds", `{"change":"renamed","key":"x","extra":[1,2]}` + "\n" + `{"change":"added","key":"y","surprise":{}}` + "\n",
			map[string]int64{"other": 1, "added": 1}, map[string]int{"added": 1}, 0, ""},
		{"a summary line is skipped", rec("added", "a") + "\n" + `{"summary":{"added":1}}` + "\n",
			map[string]int64{"added": 1}, map[string]int{"added": 1}, 1, ""},
		{"lists are bounded, counts are not", strings.Join(many, "\n"),
			map[string]int64{"added": MaxListed + 7}, map[string]int{"added": MaxListed}, 0, ""},
		{"not JSON", rec("added", "a") + "\nnot json\n", nil, nil, 0, "2:2: not a diff record: invalid character 'o'"},
		{"not an object", "[1,2]\n", nil, nil, 0, "1:1: not a diff record: a JSON array where an object belongs"},
		{"a summary, not a diff", `{"records":1,"valid":1,"invalid":0}` + "\n", nil, nil, 0, "none of its 1 JSON objects is a diff record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadDiff(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(d.Counts) != fmt.Sprint(tc.counts) || d.Skipped != tc.skip {
				t.Errorf("counts %v skipped %d, want %v and %d", d.Counts, d.Skipped, tc.counts, tc.skip)
			}
			listed := map[string]int{}
			for k, l := range d.Listed {
				listed[k] = len(l)
			}
			if fmt.Sprint(listed) != fmt.Sprint(tc.listed) {
				t.Errorf("listed %v, want %v", listed, tc.listed)
			}
		})
	}
}

func TestReadDiffRefusesHugeLine(t *testing.T) {
	in := `{"change":"added","key":"` + strings.Repeat("k", maxLine) + `"}`
	if _, err := ReadDiff(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1: longer than") {
		t.Fatalf("error %v", err)
	}
}

func TestReadDiffFields(t *testing.T) {
	in := `{"change":"broke","key":"k","key_kind":"endpoint","profile":"ma2d","old":{"input":"o","line":12,"valid":true},"new":{"input":"n","line":40,"valid":false},"changes":[{"pointer":"/p","what":"w","old":1,"new":{"a":2}}],"errors":[{"rule":"ma2d.url","pointer":"/invocation","message":"m","severity":"error"}]}`
	d, err := ReadDiff(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	c := d.Listed["broke"][0]
	if c.Key != text("k") || c.KeyKind != text("endpoint") || c.Profile != text("ma2d") || c.Old.Line != 12 || c.New.Input != text("n") ||
		c.Changes[0].Pointer != text("/p") || c.Changes[0].Old != text("1") || c.Changes[0].New != text(`{"a":2}`) ||
		c.Errors[0].Rule != text("ma2d.url") || c.Errors[0].Message != text("m") {
		t.Errorf("read %+v", c)
	}
}

// TestReadDiffKeepsListingsSmall: the records listed were kept whole, so
// that MaxListed records of each kind, each a line of up to maxLine bytes
// (a key of megabytes, thousands of changed members), held gigabytes
// for a page that shows a few hundred characters of each.
func TestReadDiffKeepsListingsSmall(t *testing.T) {
	changes := strings.Repeat(`{"pointer":"/p","what":"changed","old":1,"new":2},`, 2000)
	changes = "[" + strings.TrimSuffix(changes, ",") + "]"
	var in strings.Builder
	for _, kind := range changeKinds {
		for i := range MaxListed {
			fmt.Fprintf(&in, `{"change":%q,"key":"%d%s","profile":"a2a/1.0","changes":%s}`+"\n", kind, i, strings.Repeat("k", 20_000), changes)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := ReadDiff(strings.NewReader(in.String()))
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(d)
	// 300 records of 120 kB: the page shows at most maxText characters
	// of a key and maxChanges members of each, a few kilobytes a record.
	if limit := int64(4 << 20); kept > limit {
		t.Errorf("ReadDiff of %d MB keeps %d bytes for its listings, more than %d", in.Len()>>20, kept, limit)
	}
	if got := len(d.Listed["broke"]); got != MaxListed {
		t.Errorf("listed %d broke records, want %d", got, MaxListed)
	}
}

// TestReadDiffPrettyJSON: a pretty-printed JSON document given as the
// diff (a --summary file, most often) failed at "1:2: not a diff record:
// unexpected EOF", which does not say that a diff is one record a line.
func TestReadDiffPrettyJSON(t *testing.T) {
	for _, in := range []string{"{\n  \"records\": 1,\n  \"valid\": 1\n}\n", "{\r\n  \"change\": \"added\"\r\n}\r\n"} {
		_, err := ReadDiff(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "1:2: ") || !strings.Contains(err.Error(), "one JSON object a line") {
			t.Errorf("%q: error %v, want one at 1:2 saying a diff is one JSON object a line", in, err)
		}
	}
}
