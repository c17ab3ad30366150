package mediatype

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		header, want string
		ok, json     bool
	}{
		{"application/json", "application/json", true, true},
		{" Application/JSON ; charset=utf-8", "application/json", true, true},
		{"application/agentcard+json", "application/agentcard+json", true, true},
		{"application/vnd.api+json", "application/vnd.api+json", true, true},
		{"text/json", "text/json", true, true},
		{"application/problem+json; charset=utf-8", "application/problem+json", true, true},
		{"text/plain", "text/plain", true, false},
		{"application/x-www-form-urlencoded", "application/x-www-form-urlencoded", true, false},
		{"application/x-ndjson", "application/x-ndjson", true, false},
		{"application/jsonp", "application/jsonp", true, false},
		{"application/json, text/plain", "", false, false},
		{"application/json text/plain", "", false, false},
		{"", "", false, false},
		{"json", "", false, false},
		{"/json", "", false, false},
		{"application/", "", false, false},
		{"application/json/x", "", false, false},
	} {
		got, ok := Parse(tc.header)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("Parse(%q) = %q, %v; want %q, %v", tc.header, got, ok, tc.want, tc.ok)
		}
		if isJSON := ok && IsJSON(got); isJSON != tc.json {
			t.Errorf("%q judged as JSON: %v, want %v", tc.header, isJSON, tc.json)
		}
	}
}

func TestParseEncoding(t *testing.T) {
	for header, want := range map[string]Encoding{
		"": Identity, "identity": Identity, " GZIP ": Gzip, "x-gzip": Gzip,
		"br": Unsupported, "deflate": Unsupported, "gzip, br": Unsupported, "zstd": Unsupported,
	} {
		if got := ParseEncoding(header); got != want {
			t.Errorf("ParseEncoding(%q) = %v, want %v", header, got, want)
		}
	}
}
