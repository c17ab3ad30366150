package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeExtremeFigures: summary merge adds whatever times its
// summaries hold; it fails only on counts that do not fit, naming them.
func TestMergeExtremeFigures(t *testing.T) {
	dir := t.TempDir()
	doc := func(name, members string) string {
		return writeFile(t, filepath.Join(dir, name), []byte(`{"records":1,"valid":1,"invalid":0,"bytes_decompressed":9000000,`+members+`}`))
	}
	// Two files of each, since one file named twice is refused.
	long, long2 := doc("long.json", `"seconds":1e308`), doc("long2.json", `"seconds":1e308`)
	short := doc("short.json", `"seconds":1e-320`)
	full, full2 := doc("full.json", `"seconds":1,"errors":9223372036854775807`), doc("full2.json", `"seconds":1,"errors":9223372036854775807`)
	for _, tc := range []struct {
		files  []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{long, long2}, exitOK, `"seconds": 1.7976931348623157e+308`, ""},
		{[]string{short}, exitOK, `"mb_per_second": 1000000000,`, ""},
		{[]string{full, full2}, exitIO, "", "full2.json: errors: the total does not fit a 64-bit integer"},
	} {
		r := run(t, "", append([]string{"summary", "merge"}, tc.files...)...)
		if r.code != tc.code || !strings.Contains(r.stdout, tc.stdout) || !strings.Contains(r.stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.files, r.code, r.stdout, r.stderr)
		}
	}
}
