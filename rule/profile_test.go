package rule

import "testing"

func TestInProfile(t *testing.T) {
	cases := []struct {
		p       Profiles
		profile string
		want    bool
	}{
		{AllProfiles, "ma2d", true},
		{AllProfiles, "nonsense", true},
		{Agentcard | MA2D, "ma2d", true},
		{Agentcard | MA2D, "a2a/1.0", false},
		{Agentcard | MA2D, "auto", true},
		{A2A, "a2a/0.1", true},
		{Only(A2A10), "a2a", true},
		{Only(A2A10), "a2a/0.3", false},
		{Since(A2A02), "a2a/0.1", false},
		{Since(A2A02), "a2a/1.0", true},
		{Signatures, "a2a/0.3", true},
		{Signatures, "agentcard", false},
		{Signatures, "auto", true},
		{CrossCard, "agentcard", true},
		{Fetch, "fetch", false},
		{Fetch, "auto", false},
		{Migrate, "migrate", false},
		{Probe, "probe", false},
		{Probe, "auto", false},
		{Auto, "auto", true},
		{Auto, "agentcard", false},
	}
	for _, c := range cases {
		if got := (Rule{Profiles: c.p}).InProfile(c.profile); got != c.want {
			t.Errorf("%s in %q = %v, want %v", c.p, c.profile, got, c.want)
		}
	}
}

// TestProfilesString holds the names the rule reference prints, in the
// order it prints them.
func TestProfilesString(t *testing.T) {
	cases := map[Profiles]string{
		Agentcard | A2A | MA2D: "agentcard,a2a,ma2d",
		Since(A2A02):           "a2a/0.2,a2a/0.3,a2a/1.0",
		Since(A2A03):           "a2a/0.3,a2a/1.0",
		Only(A2A10):            "a2a/1.0",
		AllProfiles:            "all",
		CrossCard:              "cross-card",
		0:                      "",
	}
	for p, want := range cases {
		if got := p.String(); got != want {
			t.Errorf("%#x: %q, want %q", uint32(p), got, want)
		}
	}
}

func TestReleasesOrdered(t *testing.T) {
	for r := A2A01; r < LatestRelease; r++ {
		if r.Profile()<<1 != (r+1).Profile() || r.String() >= (r+1).String() {
			t.Errorf("%v and %v are out of order", r, r+1)
		}
	}
	if LatestRelease.Profile() != a2aLast {
		t.Errorf("the latest release's bit is %#x, want a2aLast %#x: a new release needs a bit before MA2D", uint32(LatestRelease.Profile()), uint32(a2aLast))
	}
}
