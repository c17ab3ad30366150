package fastvalidate

import (
	"bytes"
	"testing"
)

// FuzzParsePlainHTTP checks the fast path against ParseURI: whatever it
// accepts, ParseURI accepts with the same scheme and host.
func FuzzParsePlainHTTP(f *testing.F) {
	for _, s := range []string{
		"https://agent.example.com/a2a", "http://localhost:8080/", "https://a.b/c?d=e&f=g", "https://x", "https://x:",
		"https://x:80a", "https://x/#frag", "https://x/a b", "https://x/%41", "https://[::1]/", "https://u@x/",
		"https://x?q", "https://x_y/", "HTTPS://X/", "https://", "http:/x", "https://x/é", "https://-/",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, ok := parsePlainHTTP(b)
		if !ok {
			return
		}
		slow, ok := ParseURI(b)
		if !ok {
			t.Fatalf("parsePlainHTTP accepts %q, ParseURI does not", b)
		}
		if !bytes.Equal(fast.Scheme, slow.Scheme) || !bytes.Equal(fast.Host, slow.Host) || fast.HasAuthority != slow.HasAuthority {
			t.Fatalf("%q: fast path gives %q %q %v, ParseURI %q %q %v", b, fast.Scheme, fast.Host, fast.HasAuthority, slow.Scheme, slow.Host, slow.HasAuthority)
		}
	})
}
