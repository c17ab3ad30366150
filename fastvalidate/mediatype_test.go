package fastvalidate

import "testing"

// TestCommonMediaTypes checks the media types decided by one switch
// against the general path. The list is commonMediaType's.
func TestCommonMediaTypes(t *testing.T) {
	common := []string{"text/plain", "text/html", "text/csv", "text/markdown", "text/event-stream",
		"application/json", "application/pdf", "application/xml", "application/octet-stream",
		"image/png", "image/jpeg", "image/gif", "image/webp", "audio/wav", "audio/mpeg", "video/mp4"}
	for _, m := range common {
		if !commonMediaType([]byte(m)) || !anyMediaType([]byte(m)) {
			t.Errorf("%q: common %v, general %v", m, commonMediaType([]byte(m)), anyMediaType([]byte(m)))
		}
	}
	for _, m := range []string{"text", "text/", "Text/plain", "text/plain ", "text/plain;", "application/jsonx", "image/svg+xml", ""} {
		if commonMediaType([]byte(m)) {
			t.Errorf("%q is not one of the common media types", m)
		}
	}
}
