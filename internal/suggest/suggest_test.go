package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"url", "url", 0},
		{"ulr", "url", 1}, // a swap is one edit
		{"ulr", "null", 2},
		{"semvar", "semver", 1},
		{"mim", "mime", 1},
		{"abc", "", 3},
		{"", "abc", 3},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau (2)
		{strings.Repeat("a", 65), "a", 64},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNearest(t *testing.T) {
	rules := []string{"a2a.null", "a2a.url", "a2a.mime", "version.semver", "json.duplicate-key", "endpoint.insecure"}
	for _, tc := range []struct{ in, want string }{
		{"a2a.ulr", "a2a.url"}, // Levenshtein ties it with a2a.null
		{"version.semvar", "version.semver"},
		{"VERSION.SEMVER", "version.semver"},
		{"A2A.MINE", "a2a.mime"},
		{"json.duplicate-keys", "json.duplicate-key"},
		{"endpoint.insecur", "endpoint.insecure"},
		{"completely.different", ""},
		{"x", ""},
		{"", ""},
	} {
		if got := Nearest(tc.in, rules); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
