package fastvalidate

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMaxDepth is the nesting limit a Validator enforces unless told
// otherwise: deep enough for any real card, shallow enough that a hostile
// one costs nothing.
const DefaultMaxDepth = 512

// Policy selects how strictly risky but legal values are judged.
type Policy uint8

const (
	// PolicyDefault reports risky values (plain http, localhost, private
	// addresses) as warnings.
	PolicyDefault Policy = iota
	// PolicyProduction reports them as errors. It makes no network calls.
	PolicyProduction
)

// Option configures a Validator.
type Option func(*config)

type config struct {
	maxDepth int
	now      func() time.Time
	policy   Policy
	// embedded unwraps a card given as a JSON string holding the object:
	// the draft's section 3 form, which its own profile (and auto, which
	// may pick it) must accept. Other specs know no such form.
	embedded bool
	// rootType is the rule a non-object card breaks.
	rootType Code
	// overrides holds WithSeverity's severities by rule, 0 for none; nil
	// when there is no override, which is what the hot path checks.
	overrides *[maxCode]Severity
	// err is what New returns: an option it refused.
	err error
}

// WithMaxDepth sets the nesting limit (DefaultMaxDepth by default); a
// limit below 1 counts as 1.
func WithMaxDepth(n int) Option { return func(c *config) { c.maxDepth = max(n, 1) } }

// WithClock sets the clock used to tell whether an agent_id's timestamp lies
// in the future (time.Now by default, and for nil); tests pin it.
func WithClock(now func() time.Time) Option {
	if now == nil {
		now = time.Now
	}
	return func(c *config) { c.now = now }
}

// WithPolicy sets the policy (PolicyDefault by default).
func WithPolicy(p Policy) Option { return func(c *config) { c.policy = p } }

// checkFunc applies one profile's rules to the card at the tape's root and
// returns the name of the profile that judged it: the profile's own, or,
// for one that detects a dialect or version, the one it detected.
type checkFunc func(w *walker) string

type profileDef struct {
	name  string
	check checkFunc
	doc   string
	// rejected names the profile of a card the checks never saw, because
	// the scan rejected it or it is no object; nil means the profile's own
	// name.
	rejected func(w *walker) string
}

var profiles = map[string]profileDef{}

func registerProfile(name, doc string, check checkFunc) {
	registerProfileDef(profileDef{name: name, check: check, doc: doc})
}

func registerProfileDef(def profileDef) {
	if _, dup := profiles[def.name]; dup {
		panic("fastvalidate: profile registered twice: " + def.name)
	}
	profiles[def.name] = def
}

// Profiles returns the names of the profiles New accepts, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnknownProfile is returned by New for a profile name it does not know.
var ErrUnknownProfile = errors.New("fastvalidate: unknown profile")

// Validator checks cards against one profile.
//
// A Validator may be reused for any number of cards. Once its buffers have
// grown to the largest card seen, a valid card costs no allocation, save
// one whose URLs have internationalised host names, which are decoded, and
// under PolicyProduction a host the public suffix lookup has not seen
// lately (see docs/design.md). It cannot be used
// from concurrent goroutines: use one per goroutine, or a Pool. Make it
// with New or MustNew: the zero Validator has no profile, and Validate
// panics on it.
type Validator struct {
	cfg     config
	profile profileDef
	w       walker
}

// New returns a Validator for the named profile (see Profiles). Nil
// options are skipped. It fails with an error wrapping ErrUnknownProfile
// for a profile it does not know, and one wrapping ErrOverride for a
// WithSeverity it refuses.
func New(profile string, opts ...Option) (*Validator, error) {
	def, ok := profiles[profile]
	if !ok {
		return nil, errors.Join(ErrUnknownProfile, errors.New("fastvalidate: no profile "+strconv.Quote(profile)+"; known: "+strings.Join(Profiles(), ", ")))
	}
	v := &Validator{profile: def}
	v.cfg = config{maxDepth: DefaultMaxDepth, now: time.Now, rootType: CodeCardType}
	switch profile {
	case "agentcard", "auto":
		v.cfg.embedded = true
	case "agentcard-schema":
		v.cfg.rootType = CodeSchemaType
	}
	for _, o := range opts {
		if o != nil {
			o(&v.cfg)
		}
	}
	if v.cfg.err != nil {
		return nil, v.cfg.err
	}
	v.w.cfg = &v.cfg
	v.w.res.over = v.cfg.overrides
	v.w.sc.MaxDepth = v.cfg.maxDepth
	// The content rules' parts to run follow from the policy and the
	// overrides, fixed here; when any runs, the scanner lists the names
	// they read (see checkContent).
	v.w.work = v.w.contentWork() | workKnown
	if v.w.work != workKnown {
		v.w.sc.PickKeys(contentKeys)
	}
	return v, nil
}

// MustNew is like New but panics where New would fail; for package-level
// variables.
func MustNew(profile string, opts ...Option) *Validator {
	v, err := New(profile, opts...)
	if err != nil {
		panic(err)
	}
	return v
}

// Profile returns the profile name the Validator was built for.
func (v *Validator) Profile() string { return v.profile.name }

// Validate judges one card: a JSON object, or a JSON string whose content
// is the object (the embedded-string form). The Result is valid until the
// next call to Validate.
func (v *Validator) Validate(card []byte) *Result {
	w := &v.w
	if w.cfg == nil {
		panic("fastvalidate: Validate on a zero Validator; make it with New or MustNew")
	}
	w.res.reset()
	w.validate(card, &v.profile)
	return &w.res
}

// Pool hands out Validators of one profile to concurrent goroutines, for
// request handlers that come and go. Long-lived workers should own a
// Validator each instead. Its methods are safe for concurrent use. Make it
// with NewPool: the zero Pool has no profile, and Get panics on it.
type Pool struct {
	profile string
	opts    []Option
	pool    sync.Pool
}

// NewPool returns a Pool of Validators for the profile. It fails as New
// does.
func NewPool(profile string, opts ...Option) (*Pool, error) {
	if _, err := New(profile, opts...); err != nil {
		return nil, err
	}
	// Cloned: the pool reads its options whenever it makes a
	// Validator, long after the caller's slice may have been reused.
	p := &Pool{profile: profile, opts: slices.Clone(opts)}
	p.pool.New = func() any { return MustNew(p.profile, p.opts...) }
	return p, nil
}

// Get returns a Validator for the caller's exclusive use until Put.
func (p *Pool) Get() *Validator {
	v, _ := p.pool.Get().(*Validator)
	if v == nil {
		panic("fastvalidate: Get on a zero Pool; make it with NewPool")
	}
	return v
}

// Put returns a Validator that this Pool's Get gave out (one of another
// profile or options would judge later cards by its rules); its last
// Result must no longer be used.
func (p *Pool) Put(v *Validator) { p.pool.Put(v) }

// Valid reports whether the card passes, for callers that need only the
// verdict. Safe for concurrent use.
func (p *Pool) Valid(card []byte) bool {
	v := p.Get()
	ok := v.Validate(card).Valid()
	p.Put(v)
	return ok
}
