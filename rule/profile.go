package rule

import "strings"

// Profiles is a set of the profiles (and groups of checks outside any
// profile) that report a rule, one bit each. The bits are in the order the
// rule reference lists them.
type Profiles uint32

// The profiles, A2A releases and groups a rule may belong to.
const (
	Agentcard Profiles = 1 << iota
	AgentcardSchema
	// A2A is every A2A release: a rule the A2A checks report whatever
	// release a card is judged as.
	A2A
	a2aFirst // the first release's bit; see Release.Profile
	_
	_
	a2aLast // the last release's bit: a new release takes the next one
	MA2D
	Auto
	// Fetch rules judge HTTP responses: only cardscan fetch reports them.
	Fetch
	// Signatures rules judge signatures against trusted keys: any A2A run
	// given keys may report them.
	Signatures
	// Migrate rules are cardscan migrate's: no profile reports them.
	Migrate
	// Probe rules judge the answers of a card's interfaces: only cardscan
	// probe reports them.
	Probe
	// CrossCard rules judge a whole dump: any run may report them with
	// --cross-card.
	CrossCard
	// AllProfiles is the strict JSON layer and the checks every profile
	// makes.
	AllProfiles
)

// Release is an A2A release the checks tell apart. Releases are ordered:
// "1.0 or later" is r >= A2A10, so a new release is one more constant and
// the rules that differ.
type Release uint8

// The A2A releases, oldest first.
const (
	A2A01 Release = iota + 1
	A2A02
	A2A03
	A2A10
	// LatestRelease is the newest release cardscan knows.
	LatestRelease = A2A10
)

var releaseNames = [...]string{A2A01: "a2a/0.1", A2A02: "a2a/0.2", A2A03: "a2a/0.3", A2A10: "a2a/1.0"}

// String returns the release's profile name, e.g. "a2a/1.0".
func (r Release) String() string {
	if r >= A2A01 && r <= LatestRelease {
		return releaseNames[r]
	}
	return "a2a"
}

// Profile returns the release's bit.
func (r Release) Profile() Profiles { return a2aFirst << (r - A2A01) }

// Since returns the bits of release r and every later one.
func Since(r Release) Profiles {
	var p Profiles
	for ; r <= LatestRelease; r++ {
		p |= r.Profile()
	}
	return p
}

// Only returns the bit of release r alone: a rule of that release and no
// other.
func Only(r Release) Profiles { return r.Profile() }

const (
	allReleases = a2aFirst | a2aFirst<<1 | a2aFirst<<2 | a2aLast
	// never are groups no profile reports, even auto's.
	never = Fetch | Migrate | Probe
)

var profileNames = func() map[Profiles]string {
	m := map[Profiles]string{
		Agentcard: "agentcard", AgentcardSchema: "agentcard-schema", A2A: "a2a", MA2D: "ma2d",
		Auto: "auto", Fetch: "fetch", Signatures: "signatures", Migrate: "migrate", Probe: "probe",
		CrossCard: "cross-card", AllProfiles: "all",
	}
	for r := A2A01; r <= LatestRelease; r++ {
		m[r.Profile()] = r.String()
	}
	return m
}()

// String lists the set's names, comma-separated, in bit order.
func (p Profiles) String() string {
	var b strings.Builder
	for bit := Profiles(1); bit != 0 && bit <= p; bit <<= 1 {
		if p&bit == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(profileNames[bit])
	}
	return b.String()
}

// reach returns the bits of every rule a run with profile p can report.
func reach(p string) Profiles {
	if p == "auto" {
		return ^never
	}
	can := AllProfiles | CrossCard
	switch {
	case p == "a2a":
		can |= A2A | allReleases | Signatures
	case strings.HasPrefix(p, "a2a/"):
		can |= A2A | Signatures
	}
	for bit, name := range profileNames {
		if name == p {
			can |= bit
		}
	}
	return can &^ never
}

// InProfile reports whether a run with profile p can report the rule, so
// that `--list-rules --profile P` lists what a run with --profile P can
// report. The rules of the strict JSON layer apply everywhere, auto may
// apply any profile's, a2a any A2A release's, and signature verification's
// apply to A2A cards; the fetch, migrate and probe rules belong to no profile and
// --cross-card's to every one.
func (r Rule) InProfile(p string) bool { return r.Profiles&reach(p) != 0 }
