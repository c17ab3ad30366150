package fastvalidate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
)

// panicText runs f and returns what it panicked with, "" if it did not.
func panicText(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// A Validator or Pool declared rather than made is a programming error;
// it must say so, in words that point at New, not as a nil dereference
// deep in the walker.
func TestZeroValues_SayHowToMakeThem(t *testing.T) {
	for name, f := range map[string]func(){
		"Validator.Validate": func() { var v fastvalidate.Validator; v.Validate([]byte(`{}`)) },
		"Pool.Get":           func() { var p fastvalidate.Pool; p.Get() },
		"Pool.Valid":         func() { var p fastvalidate.Pool; p.Valid([]byte(`{}`)) },
	} {
		msg := panicText(f)
		if !strings.HasPrefix(msg, "fastvalidate: ") || !strings.Contains(msg, "New") {
			t.Errorf("zero %s panics with %q, want a fastvalidate message naming its constructor", name, msg)
		}
	}
}

// An option chosen at run time is often nil when not wanted; New skips
// it rather than calling it.
func TestNew_SkipsNilOptions(t *testing.T) {
	var none fastvalidate.Option
	var v *fastvalidate.Validator
	var err error
	if msg := panicText(func() { v, err = fastvalidate.New("agentcard", none, fastvalidate.WithMaxDepth(2)) }); msg != "" {
		t.Fatalf("New with a nil option panics: %s", msg)
	}
	if err != nil {
		t.Fatal(err)
	}
	if v.Validate([]byte(`{"a":{"b":{}}}`)).Findings()[0].Rule() != "json.depth" {
		t.Error("the option after the nil one was not applied")
	}
	if msg := panicText(func() { _, err = fastvalidate.NewPool("agentcard", none) }); msg != "" || err != nil {
		t.Fatalf("NewPool with a nil option: panic %q, error %v", msg, err)
	}
}

// A Pool makes Validators long after NewPool returns; a caller that
// reuses its slice of options for another pool must not change this one.
func TestNewPool_KeepsItsOwnOptions(t *testing.T) {
	opts := []fastvalidate.Option{fastvalidate.WithMaxDepth(2)}
	pool, err := fastvalidate.NewPool("agentcard", opts...)
	if err != nil {
		t.Fatal(err)
	}
	opts[0] = fastvalidate.WithMaxDepth(100)
	deep := []byte(`{"a":{"b":{}}}`)
	v := pool.Get()
	if f := v.Validate(deep).Findings(); len(f) == 0 || f[0].Rule() != "json.depth" {
		t.Errorf("a Pool made with depth 2 judged a card of depth 3 as %v", f)
	}
}

// WithClock(nil), a clock left unset, means the default clock, not a
// panic in the middle of judging a valid card.
func TestWithClock_Nil(t *testing.T) {
	card := []byte(`{"agent_id":"01HZQK3P8EMXR9V7T5N2W4J6C0","name":"A","version":"1.0.0",` +
		`"capabilities":[{"id":"a","description":"d"}],"endpoint":{"protocol":"https","url":"https://a.example"}}`)
	v := fastvalidate.MustNew("agentcard", fastvalidate.WithClock(nil))
	var valid bool
	if msg := panicText(func() { valid = v.Validate(card).Valid() }); msg != "" {
		t.Fatalf("Validate with WithClock(nil) panics: %s", msg)
	}
	if !valid {
		t.Error("a valid card fails under WithClock(nil)")
	}
}
