package cardsig

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// flakyKeyServer serves jwks below /a2a/ once failing is false, and 503
// while it is true, counting the requests it answers.
type flakyKeyServer struct {
	*httptest.Server
	failing atomic.Bool
	hits    atomic.Int32
	jwks    atomic.Value // []byte
}

func newFlakyKeyServer(t *testing.T, jwks []byte) *flakyKeyServer {
	t.Helper()
	s := &flakyKeyServer{}
	s.jwks.Store(jwks)
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if !strings.HasPrefix(r.URL.Path, "/a2a/") {
			http.NotFound(w, r)
			return
		}
		if s.failing.Load() {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(s.jwks.Load().([]byte))
	}))
	t.Cleanup(s.Close)
	return s
}

// jkuVerifier returns a Verifier that trusts only srv's /a2a/ jku, on clock.
func jkuVerifier(t *testing.T, srv *flakyKeyServer, clock *fakeClock) *Verifier {
	t.Helper()
	empty, err := ParseKeySet([]byte(`{"keys":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(empty, WithTrustedJKU(srv.Client(), srv.URL+"/a2a/"))
	if err != nil {
		t.Fatal(err)
	}
	v.jku.now = clock.now
	return v
}

func status(t *testing.T, v *Verifier, card []byte) Signature {
	t.Helper()
	res, err := v.Verify(card)
	if err != nil {
		t.Fatal(err)
	}
	return res.Signatures[0]
}

// A key set whose server fails is answered from memory for a short while,
// then fetched again: a long-running serve recovers from a transient
// failure without a restart, and a failing server is not asked once per
// card.
func TestVerify_JKURecoversAfterFailure(t *testing.T) {
	keys := testKeys(t)
	srv := newFlakyKeyServer(t, trustStore(t, keys[:1]))
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	v := jkuVerifier(t, srv, clock)
	card := sign(t, testCard, keys[0], SignOptions{JKU: srv.URL + "/a2a/jwks.json"})

	srv.failing.Store(true)
	if got := status(t, v, card); got.Status != KeyUnknown || !strings.Contains(got.Reason, "503") {
		t.Fatalf("while the server fails: got %v (%s), want %v naming the 503", got.Status, got.Reason, KeyUnknown)
	}
	srv.failing.Store(false)
	clock.advance(jkuRetryAfter / 2)
	if got := status(t, v, card); got.Status != KeyUnknown {
		t.Errorf("within the retry window: got %v, want the remembered failure", got.Status)
	}
	if n := srv.hits.Load(); n != 1 {
		t.Errorf("within the retry window the server was asked %d times, want 1", n)
	}
	clock.advance(jkuRetryAfter)
	if got := status(t, v, card); got.Status != Verified {
		t.Errorf("after the retry window: got %v (%s), want %v", got.Status, got.Reason, Verified)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("the server was asked %d times, want 2", n)
	}
}

// A key set that was fetched is fetched again once it is old, so a key its
// owner removed (rotated out or compromised) stops verifying in a
// long-running serve.
func TestVerify_JKURefetchesOldKeySet(t *testing.T) {
	keys := testKeys(t)
	srv := newFlakyKeyServer(t, trustStore(t, keys[:1]))
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	v := jkuVerifier(t, srv, clock)
	card := sign(t, testCard, keys[0], SignOptions{JKU: srv.URL + "/a2a/jwks.json"})

	if got := status(t, v, card); got.Status != Verified {
		t.Fatalf("got %v (%s), want %v", got.Status, got.Reason, Verified)
	}
	srv.jwks.Store(trustStore(t, keys[1:2]))
	clock.advance(jkuKeepFor - time.Second)
	if got := status(t, v, card); got.Status != Verified {
		t.Errorf("before the key set is old: got %v (%s), want %v", got.Status, got.Reason, Verified)
	}
	clock.advance(2 * time.Second)
	if got := status(t, v, card); got.Status != KeyUnknown {
		t.Errorf("after the key was removed from the set: got %v, want %v", got.Status, KeyUnknown)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("the server was asked %d times, want 2", n)
	}
}

// Concurrent verifications that need a key set the fetcher lacks make one
// request between them, the first time and after each retry window.
func TestVerify_JKUOneFetchForConcurrentCards(t *testing.T) {
	keys := testKeys(t)
	srv := newFlakyKeyServer(t, trustStore(t, keys[:1]))
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	v := jkuVerifier(t, srv, clock)
	card := sign(t, testCard, keys[0], SignOptions{JKU: srv.URL + "/a2a/jwks.json"})

	verifyAll := func(want Status) {
		t.Helper()
		var wg sync.WaitGroup
		got := make([]Status, 16)
		for i := range got {
			wg.Go(func() { got[i] = status(t, v, card).Status })
		}
		wg.Wait()
		for i, s := range got {
			if s != want {
				t.Errorf("card %d: got %v, want %v", i, s, want)
			}
		}
	}
	srv.failing.Store(true)
	verifyAll(KeyUnknown)
	srv.failing.Store(false)
	clock.advance(jkuRetryAfter + time.Second)
	verifyAll(Verified)
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("32 verifications in two rounds asked the server %d times, want 2", n)
	}
}

// A stream of cards each naming another jku below a trusted prefix keeps
// at most jkuMaxSets key sets in memory.
func TestKeyFetcher_BoundedSets(t *testing.T) {
	keys := testKeys(t)
	srv := newFlakyKeyServer(t, trustStore(t, keys[:1]))
	f := newKeyFetcher(srv.Client(), nil)
	base, err := url.Parse(srv.URL + "/a2a/")
	if err != nil {
		t.Fatal(err)
	}
	for i := range jkuMaxSets + 40 {
		u := base.JoinPath(strconv.Itoa(i))
		if ks, why := f.get(u); ks == nil {
			t.Fatalf("%s: %s", u, why)
		}
	}
	f.mu.Lock()
	n := len(f.sets)
	f.mu.Unlock()
	if n > jkuMaxSets {
		t.Errorf("the fetcher keeps %d key sets, want at most %d", n, jkuMaxSets)
	}
	// The newest is still answered from memory.
	before := srv.hits.Load()
	if ks, _ := f.get(base.JoinPath(strconv.Itoa(jkuMaxSets + 39))); ks == nil {
		t.Fatal("the newest key set was lost")
	}
	if srv.hits.Load() != before {
		t.Error("the newest key set was fetched again")
	}
}

// Key sets are kept up to jkuMaxSetBytes of their bodies in all, so that
// a server (a same-origin jku is the card's origin's) answering every URL
// below it with a 2 MiB set cannot hold 256 of them.
func TestKeyFetcher_BoundedBytes(t *testing.T) {
	keys := testKeys(t)
	// One key, padded with white space to most of JKUMaxBytes.
	jwks := append(trustStore(t, keys[:1]), bytes.Repeat([]byte(" "), JKUMaxBytes-4096)...)
	srv := newFlakyKeyServer(t, jwks)
	f := newKeyFetcher(srv.Client(), nil)
	base, err := url.Parse(srv.URL + "/a2a/")
	if err != nil {
		t.Fatal(err)
	}
	n := 2*jkuMaxSetBytes/len(jwks) + 2
	for i := range n {
		if ks, why := f.get(base.JoinPath(strconv.Itoa(i))); ks == nil {
			t.Fatalf("set %d: %s", i, why)
		}
	}
	f.mu.Lock()
	kept, held := len(f.sets), 0
	for _, e := range f.sets {
		held += e.size
	}
	f.mu.Unlock()
	if held > jkuMaxSetBytes || kept*len(jwks) > jkuMaxSetBytes {
		t.Errorf("%d key sets of %d bytes kept (%d counted), want at most %d bytes", kept, len(jwks), held, jkuMaxSetBytes)
	}
	if kept == 0 {
		t.Error("no key set kept")
	}
}
