package fastvalidate

import "testing"

func TestNewFinding(t *testing.T) {
	for _, tc := range []struct {
		name     string
		code     Code
		sev      Severity
		path     string
		message  string
		wantText string
	}{
		{"own message", CodeHTTPCacheControl, SeverityWarning, "", "served without a Cache-Control header", "served without a Cache-Control header"},
		{"verbs stay text", CodeHTTPContentType, SeverityWarning, "/x", `served as "text/%s%d%%"`, `served as "text/%s%d%%"`},
		{"no message is the description", CodeInputTooLarge, SeverityError, "", "", CodeInputTooLarge.Description()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFinding(tc.code, tc.sev, tc.path, tc.message)
			if f.Code != tc.code || f.Severity != tc.sev || f.Path != tc.path || f.Offset != 0 {
				t.Errorf("NewFinding = %+v", f)
			}
			if got := f.Message(); got != tc.wantText {
				t.Errorf("Message() = %q, want %q", got, tc.wantText)
			}
			if got := string(f.AppendMessage([]byte("> "))); got != "> "+tc.wantText {
				t.Errorf("AppendMessage = %q", got)
			}
		})
	}
}
