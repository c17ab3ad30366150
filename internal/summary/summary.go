// Package summary is the JSON report of a cardscan run, and the sum of
// several such reports for a dump validated in shards.
package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardscan/cardscan/internal/visible"
	jsonv2 "github.com/go-json-experiment/json"
)

// Summary is what --summary writes. Counts add up under Merge; Seconds is
// the sum of the runs' wall-clock times and MBPerSecond is recomputed from
// the sums, i.e. the throughput per process. Seconds saturate at the
// largest float64 and MBPerSecond is capped at MaxMBPerSecond, so that a
// summary never holds an infinity.
type Summary struct {
	Counts

	Inputs      int64 `json:"inputs"`
	InputErrors int64 `json:"input_errors"`
	// Framings counts inputs by the framing they were read with: "ndjson"
	// or "json" (an input that could not be opened has none).
	Framings          map[string]int64 `json:"framings"`
	BytesRead         int64            `json:"bytes_read"`         // as stored, compressed or not
	BytesDecompressed int64            `json:"bytes_decompressed"` // as judged
	Seconds           float64          `json:"seconds"`
	MBPerSecond       float64          `json:"mb_per_second"` // decompressed MB (10^6 bytes) per second
	// FetchFailures counts, by rule, the URLs of cardscan fetch that
	// yielded no card to judge; each is also an input error. Absent from
	// the summaries of file runs.
	FetchFailures map[string]int64 `json:"fetch_failures,omitempty"`
	// StoppedEarly tells that --max-invalid ended a run before its inputs did.
	StoppedEarly bool `json:"stopped_early"`
	// Interrupted tells that a signal (SIGINT, SIGTERM, SIGHUP) ended a
	// run before its inputs did.
	Interrupted bool `json:"interrupted"`
	// Shards is the number of runs summed up: 1 for one run.
	Shards int64 `json:"shards"`
	// Signatures counts what signature verification saw; absent when no
	// run verified signatures (no keys, or --signatures off).
	Signatures *Signatures `json:"signatures,omitempty"`
	// Overrides maps each rule whose severity a policy file or --rule set
	// to the level in force: off, warning or error. Absent without any.
	Overrides map[string]string `json:"overrides,omitempty"`
	// ProfileVerdicts splits Profiles' counts into valid and invalid
	// cards. Absent from summaries written before it existed, so a merge
	// with one of those covers fewer records than Profiles.
	ProfileVerdicts map[string]Verdicts `json:"profile_verdicts,omitempty"`
	// WorstInputs are the inputs with the most invalid records, most
	// first, at most MaxWorstInputs of them: a run over a million files
	// keeps its summary small.
	WorstInputs []InputCount `json:"worst_inputs,omitempty"`
	// SchemaWouldPass counts the invalid AgentCards, judged by the draft,
	// that the AgentCard JSON Schema v1.0 passes: where the two disagree
	// (docs/rules.md). Absent when none.
	SchemaWouldPass int64 `json:"schema_would_pass,omitempty"`
	// Probes counts what cardscan probe (or fetch --probe) found of the
	// interfaces it asked; absent from runs that probed none.
	Probes *Probes `json:"probes,omitempty"`
}

// Counts are the counts of judged cards and their findings, which a
// run, a shard or a fetch adds up record by record.
type Counts struct {
	Records  int64 `json:"records"`
	Valid    int64 `json:"valid"`
	Invalid  int64 `json:"invalid"`
	Errors   int64 `json:"errors"`   // error findings
	Warnings int64 `json:"warnings"` // warning findings
	// Rules counts findings by rule ID.
	Rules map[string]int64 `json:"rules"`
	// Profiles counts cards by the profile that judged them; "none" in a
	// summary for cards no profile judged.
	Profiles map[string]int64 `json:"profiles"`
}

// Add adds o's counts to c. It fails, leaving c in part added, when a
// count would overflow an int64 (Summary.Add says why that matters).
func (c *Counts) Add(o *Counts) error {
	var a adder
	c.add(&a, o)
	return a.err()
}

func (c *Counts) add(a *adder, o *Counts) {
	a.add("records", &c.Records, o.Records)
	a.add("valid", &c.Valid, o.Valid)
	a.add("invalid", &c.Invalid, o.Invalid)
	a.add("errors", &c.Errors, o.Errors)
	a.add("warnings", &c.Warnings, o.Warnings)
	a.addMap("rules.", &c.Rules, o.Rules)
	a.addMap("profiles.", &c.Profiles, o.Profiles)
}

// adder adds counts, and keeps the name of the first that would have
// overflowed.
type adder struct{ overflow string }

func (a *adder) add(name string, dst *int64, v int64) {
	sum := *dst + v
	if (v > 0 && sum < *dst) || (v < 0 && sum > *dst) {
		if a.overflow == "" {
			a.overflow = name
		}
		return
	}
	*dst = sum
}

// addMap adds src's counts to *dst's, making *dst when nil.
func (a *adder) addMap(prefix string, dst *map[string]int64, src map[string]int64) {
	if *dst == nil {
		*dst = map[string]int64{}
	}
	for k, v := range src {
		n := (*dst)[k]
		a.add(prefix+k, &n, v)
		(*dst)[k] = n
	}
}

func (a *adder) err() error {
	if a.overflow != "" {
		return fmt.Errorf("%s: the total does not fit a 64-bit integer", a.overflow)
	}
	return nil
}

// Probes counts probed interfaces by what they answered: every interface
// is in exactly one class, so the classes add up to Interfaces.
type Probes struct {
	Interfaces   int64 `json:"interfaces"`
	Answering    int64 `json:"answering"`     // the declared binding answered
	AuthRequired int64 `json:"auth_required"` // asked for credentials before answering
	WrongBinding int64 `json:"wrong_binding"` // another binding, HTML, a 404 page, or no binding's shape
	TLS          int64 `json:"tls"`           // the certificate did not verify for the host
	Unreachable  int64 `json:"unreachable"`   // refused, timed out, blocked or redirected away
	NotProbed    int64 `json:"not_probed"`    // a binding or URL cardscan does not ask
	// CardsSkipped are the cards with interfaces left unprobed because
	// the card is invalid (without --include-invalid).
	CardsSkipped int64 `json:"cards_skipped"`
}

// Verdicts counts the cards of one profile by verdict.
type Verdicts struct {
	Valid   int64 `json:"valid"`
	Invalid int64 `json:"invalid"`
}

// InputCount is one input's records and invalid records.
type InputCount struct {
	Input   string `json:"input"`
	Records int64  `json:"records"`
	Invalid int64  `json:"invalid"`
}

// MaxMBPerSecond caps MBPerSecond: a petabyte a second, far past any
// machine, is what a run too short for the clock to time (or a summary
// edited to a subnormal seconds) shows rather than an infinite rate,
// which JSON cannot hold.
const MaxMBPerSecond = 1e9

// MaxWorstInputs bounds WorstInputs.
const MaxWorstInputs = 20

// worse orders inputs by invalid records, most first, then by the share
// of their records that is invalid, then by name.
func worse(a, b InputCount) bool {
	if a.Invalid != b.Invalid {
		return a.Invalid > b.Invalid
	}
	if a.Records != b.Records {
		return a.Records < b.Records
	}
	return a.Input < b.Input
}

// KeepWorst adds c to list, which is in worst-first order, and returns the
// list cut to MaxWorstInputs. Inputs without an invalid record are not
// kept. Two inputs of one name (standard input read twice, or a file in
// two shards) stay two entries: each is one reading.
func KeepWorst(list []InputCount, c InputCount) []InputCount {
	if c.Invalid <= 0 {
		return list
	}
	i := sort.Search(len(list), func(i int) bool { return worse(c, list[i]) })
	if i >= MaxWorstInputs {
		return list
	}
	if len(list) < MaxWorstInputs {
		list = append(list, InputCount{})
	}
	copy(list[i+1:], list[i:])
	list[i] = c
	return list
}

// Signatures counts the outcome of signature verification.
type Signatures struct {
	Signed   int64 `json:"signed"`   // cards carrying signatures
	Verified int64 `json:"verified"` // cards a trusted key signed
	Findings int64 `json:"findings"` // findings of the a2a.signature-* verification rules
	// Outcomes counts the signatures checked by outcome: verified,
	// untrusted-origin, expired, revoked, key-unknown, invalid, alg.
	// Absent from summaries written before it existed.
	Outcomes map[string]int64 `json:"outcomes,omitempty"`
}

// SignatureOutcomes are the names Signatures.Outcomes counts, in the
// order reports list them (cardsig.Statuses).
var SignatureOutcomes = []string{"verified", "untrusted-origin", "expired", "revoked", "key-unknown", "invalid", "alg"}

// Finish sets the derived fields.
func (s *Summary) Finish() {
	if s.Rules == nil {
		s.Rules = map[string]int64{}
	}
	if s.Profiles == nil {
		s.Profiles = map[string]int64{}
	}
	if s.Framings == nil {
		s.Framings = map[string]int64{}
	}
	s.Seconds = finiteSeconds(s.Seconds)
	s.MBPerSecond = 0
	if s.Seconds > 0 {
		s.MBPerSecond = min(float64(s.BytesDecompressed)/1e6/s.Seconds, MaxMBPerSecond)
	}
}

// finiteSeconds keeps a time JSON can hold: a sum past the largest
// float64 saturates there, and a time that is no time (negative, NaN,
// which no run measures) is 0.
func finiteSeconds(secs float64) float64 {
	switch {
	case secs > math.MaxFloat64:
		return math.MaxFloat64
	case secs >= 0:
		return secs
	}
	return 0
}

// Add adds o's counts to s. It fails, leaving s in part added, when a
// count would overflow an int64: a total that wrapped round to a small or
// negative number would be taken for the truth, and one that stopped at
// the largest int64 would break records = valid + invalid. Seconds, which
// are measured rather than counted, never fail: they saturate.
func (s *Summary) Add(o *Summary) error {
	var a adder
	add := a.add
	s.Counts.add(&a, &o.Counts)
	if s.Framings == nil {
		s.Framings = map[string]int64{}
	}
	for k, v := range o.Framings {
		n := s.Framings[k]
		add("framings."+k, &n, v)
		s.Framings[k] = n
	}
	if len(o.FetchFailures) > 0 && s.FetchFailures == nil {
		s.FetchFailures = map[string]int64{}
	}
	for k, v := range o.FetchFailures {
		n := s.FetchFailures[k]
		add("fetch_failures."+k, &n, v)
		s.FetchFailures[k] = n
	}
	add("inputs", &s.Inputs, o.Inputs)
	add("input_errors", &s.InputErrors, o.InputErrors)
	add("bytes_read", &s.BytesRead, o.BytesRead)
	add("bytes_decompressed", &s.BytesDecompressed, o.BytesDecompressed)
	add("shards", &s.Shards, max(o.Shards, 1))
	add("schema_would_pass", &s.SchemaWouldPass, o.SchemaWouldPass)
	s.Seconds += o.Seconds
	s.StoppedEarly = s.StoppedEarly || o.StoppedEarly
	s.Interrupted = s.Interrupted || o.Interrupted
	if o.Signatures != nil {
		if s.Signatures == nil {
			s.Signatures = new(Signatures)
		}
		add("signatures.signed", &s.Signatures.Signed, o.Signatures.Signed)
		add("signatures.verified", &s.Signatures.Verified, o.Signatures.Verified)
		add("signatures.findings", &s.Signatures.Findings, o.Signatures.Findings)
		for k, v := range o.Signatures.Outcomes {
			if s.Signatures.Outcomes == nil {
				s.Signatures.Outcomes = map[string]int64{}
			}
			n := s.Signatures.Outcomes[k]
			add("signatures.outcomes."+k, &n, v)
			s.Signatures.Outcomes[k] = n
		}
	}
	if o.Probes != nil {
		if s.Probes == nil {
			s.Probes = new(Probes)
		}
		p, q := s.Probes, o.Probes
		add("probes.interfaces", &p.Interfaces, q.Interfaces)
		add("probes.answering", &p.Answering, q.Answering)
		add("probes.auth_required", &p.AuthRequired, q.AuthRequired)
		add("probes.wrong_binding", &p.WrongBinding, q.WrongBinding)
		add("probes.tls", &p.TLS, q.TLS)
		add("probes.unreachable", &p.Unreachable, q.Unreachable)
		add("probes.not_probed", &p.NotProbed, q.NotProbed)
		add("probes.cards_skipped", &p.CardsSkipped, q.CardsSkipped)
	}
	// Shards run under different overrides were judged by different
	// rules: a rule set differently in two of them is "mixed".
	for k, v := range o.Overrides {
		if s.Overrides == nil {
			s.Overrides = map[string]string{}
		}
		if w, ok := s.Overrides[k]; ok && w != v {
			v = "mixed"
		}
		s.Overrides[k] = v
	}
	if len(o.ProfileVerdicts) > 0 && s.ProfileVerdicts == nil {
		s.ProfileVerdicts = map[string]Verdicts{}
	}
	for k, v := range o.ProfileVerdicts {
		n := s.ProfileVerdicts[k]
		add("profile_verdicts."+k+".valid", &n.Valid, v.Valid)
		add("profile_verdicts."+k+".invalid", &n.Invalid, v.Invalid)
		s.ProfileVerdicts[k] = n
	}
	if len(o.WorstInputs) > 0 {
		// Each input is in one run, so the worst of all are among the
		// worst of each.
		merged := slices.Concat(s.WorstInputs, o.WorstInputs)
		slices.SortStableFunc(merged, func(a, b InputCount) int {
			switch {
			case worse(a, b):
				return -1
			case worse(b, a):
				return 1
			}
			return 0
		})
		s.WorstInputs = merged[:min(len(merged), MaxWorstInputs)]
	}
	s.Finish()
	return a.err()
}

// Marshal encodes s as indented JSON with a final newline.
func (s *Summary) Marshal() ([]byte, error) {
	s.Finish()
	// encoding/json sorts map keys, so that summaries diff cleanly, and
	// writes invalid UTF-8 as U+FFFD. A summary is written once per run:
	// a faster encoder would save microseconds and cost every start its
	// initialisation (cmd/cardscan's TestColdStartDeps).
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	// Input names come from crawls as the cards do: their hidden
	// characters are written as \u escapes, as verdict records write them.
	return visible.EscapeJSON(b.Bytes()), nil
}

// WriteFile writes s to path ("-" for w).
func (s *Summary) WriteFile(path string, w io.Writer) error {
	b, err := s.Marshal()
	if err != nil {
		return err
	}
	if path == "-" {
		_, err = w.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Unmarshal decodes a summary, rejecting documents that are not one:
// unknown members most likely mean a file given by mistake, or, in a
// document that is otherwise a summary, one written by a newer cardscan
// (DecodeError.Newer). A document that cannot be decoded gets a
// *DecodeError, which says where.
func Unmarshal(b []byte) (*Summary, error) {
	var s Summary
	// encoding/json, which writes summaries, would read invalid UTF-8 as
	// U+FFFD; a summary with it was not written by cardscan.
	if !utf8.Valid(b) {
		return nil, errors.New("not valid UTF-8")
	}
	// jsonv2 (the encoding/json/v2 proposal's code) reports the byte
	// offset and JSON Pointer of every fault, and rejects duplicate
	// names.
	if err := jsonv2.Unmarshal(b, &s, jsonv2.RejectUnknownMembers(true)); err != nil {
		err = LocateError(b, err)
		if de, ok := err.(*DecodeError); ok && de.unknownMember {
			de.Newer = fromNewer(b)
		}
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// check refuses a decoded summary whose counts contradict each other,
// which cardscan never writes.
func (s *Summary) check() error {
	if err := s.checkNotNegative(); err != nil {
		return err
	}
	if err := s.checkOverrides(); err != nil {
		return err
	}
	if s.Seconds < 0 {
		return fmt.Errorf("seconds is %g, less than none", s.Seconds)
	}
	if s.Records != s.Valid+s.Invalid || s.Records < 0 || s.Valid < 0 || s.Invalid < 0 {
		return fmt.Errorf("records (%d) is not valid (%d) + invalid (%d)", s.Records, s.Valid, s.Invalid)
	}
	if s.SchemaWouldPass < 0 || s.SchemaWouldPass > s.Invalid {
		return fmt.Errorf("schema_would_pass (%d) is not within the %d invalid records", s.SchemaWouldPass, s.Invalid)
	}
	if err := s.checkSignatures(); err != nil {
		return err
	}
	if err := s.checkProbes(); err != nil {
		return err
	}
	// Each record is counted under one profile ("none" when none judged
	// it), so the profiles hold at most the records; compared before each
	// addition, which could wrap.
	left := s.Records
	for _, k := range slices.Sorted(maps.Keys(s.Profiles)) {
		if s.Profiles[k] > left {
			return fmt.Errorf("profiles: the profiles count more cards than the %d records", s.Records)
		}
		left -= s.Profiles[k]
	}
	for k, v := range s.ProfileVerdicts {
		// Compared without adding, which could wrap past the largest
		// int64 to a sum that passes.
		if v.Valid < 0 || v.Invalid < 0 || v.Valid > s.Profiles[k] || v.Invalid > s.Profiles[k]-v.Valid {
			return fmt.Errorf("profile_verdicts %q: %d valid + %d invalid is not within the profile's %d cards", k, v.Valid, v.Invalid, s.Profiles[k])
		}
	}
	if len(s.WorstInputs) > MaxWorstInputs {
		return fmt.Errorf("worst_inputs: %d inputs, more than the %d a summary keeps", len(s.WorstInputs), MaxWorstInputs)
	}
	for _, c := range s.WorstInputs {
		if c.Invalid <= 0 || c.Invalid > c.Records || c.Invalid > s.Invalid {
			return fmt.Errorf("worst_inputs %q: %d invalid of %d records", c.Input, c.Invalid, c.Records)
		}
	}
	return nil
}

// checkNotNegative names the first count below zero, which no run
// counts and Add would carry into a total as it is.
func (s *Summary) checkNotNegative() error {
	counts := []struct {
		name string
		n    int64
	}{
		{"records", s.Records}, {"valid", s.Valid}, {"invalid", s.Invalid},
		{"errors", s.Errors}, {"warnings", s.Warnings},
		{"inputs", s.Inputs}, {"input_errors", s.InputErrors},
		{"bytes_read", s.BytesRead}, {"bytes_decompressed", s.BytesDecompressed},
		{"shards", s.Shards}, {"schema_would_pass", s.SchemaWouldPass},
	}
	if g := s.Signatures; g != nil {
		counts = append(counts, []struct {
			name string
			n    int64
		}{{"signatures.signed", g.Signed}, {"signatures.verified", g.Verified}, {"signatures.findings", g.Findings}}...)
	}
	if p := s.Probes; p != nil {
		counts = append(counts, []struct {
			name string
			n    int64
		}{{"probes.interfaces", p.Interfaces}, {"probes.answering", p.Answering}, {"probes.auth_required", p.AuthRequired},
			{"probes.wrong_binding", p.WrongBinding}, {"probes.tls", p.TLS}, {"probes.unreachable", p.Unreachable},
			{"probes.not_probed", p.NotProbed}, {"probes.cards_skipped", p.CardsSkipped}}...)
	}
	for _, c := range counts {
		if c.n < 0 {
			return fmt.Errorf("%s is %d, less than none", c.name, c.n)
		}
	}
	for _, m := range []struct {
		name   string
		counts map[string]int64
	}{{"rules", s.Rules}, {"profiles", s.Profiles}, {"framings", s.Framings}, {"fetch_failures", s.FetchFailures}} {
		for _, k := range slices.Sorted(maps.Keys(m.counts)) {
			if n := m.counts[k]; n < 0 {
				return fmt.Errorf("%s %q is %d, less than none", m.name, k, n)
			}
		}
	}
	return nil
}

// overrideLevels are the levels Overrides holds: those of --rule, and
// mixed, which Add writes for a rule the shards ran at different levels.
var overrideLevels = []string{"off", "warning", "error", "mixed"}

func (s *Summary) checkOverrides() error {
	for _, k := range slices.Sorted(maps.Keys(s.Overrides)) {
		if v := s.Overrides[k]; !slices.Contains(overrideLevels, v) {
			return fmt.Errorf("overrides %q: unknown level %q (known: %s)", k, v, strings.Join(overrideLevels, ", "))
		}
	}
	return nil
}

func (s *Summary) checkSignatures() error {
	g := s.Signatures
	if g == nil {
		return nil
	}
	if g.Verified < 0 || g.Findings < 0 || g.Verified > g.Signed || g.Signed > s.Records {
		return fmt.Errorf("signatures: %d verified of %d signed cards among %d records", g.Verified, g.Signed, s.Records)
	}
	var checked int64 // the signatures checked, which a report adds up
	for _, k := range slices.Sorted(maps.Keys(g.Outcomes)) {
		n := g.Outcomes[k]
		if !slices.Contains(SignatureOutcomes, k) {
			return fmt.Errorf("signatures.outcomes: unknown outcome %q (known: %s)", k, strings.Join(SignatureOutcomes, ", "))
		}
		if n < 0 {
			return fmt.Errorf("signatures.outcomes.%s is %d, less than none", k, n)
		}
		if n > math.MaxInt64-checked {
			return errors.New("signatures.outcomes: the outcomes add up to more than a 64-bit integer holds")
		}
		checked += n
	}
	return nil
}

func (s *Summary) checkProbes() error {
	p := s.Probes
	if p == nil {
		return nil
	}
	var sum int64
	for _, n := range []int64{p.Answering, p.AuthRequired, p.WrongBinding, p.TLS, p.Unreachable, p.NotProbed} {
		if n < 0 {
			return errors.New("probes: a count is less than none")
		}
		if n > p.Interfaces-sum {
			// Compared before adding: a sum that wrapped past the
			// largest int64 could come out right.
			return fmt.Errorf("probes: the classes add up to more than the %d interfaces", p.Interfaces)
		}
		sum += n
	}
	if sum != p.Interfaces || p.CardsSkipped < 0 {
		return fmt.Errorf("probes: the classes add up to %d, not the %d interfaces", sum, p.Interfaces)
	}
	return nil
}

// Human is the short summary written to stderr at the end of a run,
// without a final newline.
func (s *Summary) Human() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d valid, %d invalid", plural(s.Records, "record"), s.Valid, s.Invalid)
	if s.Warnings > 0 {
		fmt.Fprintf(&b, ", %s", plural(s.Warnings, "warning"))
	}
	if s.SchemaWouldPass > 0 {
		fmt.Fprintf(&b, "; %d of the invalid pass the AgentCard JSON Schema v1.0", s.SchemaWouldPass)
	}
	if g := s.Signatures; g != nil {
		if g.Signed == 0 {
			// Keys were given and no card carried a signature: worth
			// saying, but not as a fraction of nothing.
			b.WriteString("; no signed cards")
		} else {
			fmt.Fprintf(&b, "; %d of %s verified", g.Verified, plural(g.Signed, "signed card"))
		}
		if t := outcomesText(g.Outcomes); t != "" {
			b.WriteString(" (signatures: " + t + ")")
		}
	}
	if s.StoppedEarly || s.Interrupted {
		// Reading runs ahead of judging by the chunks in flight, so a
		// run ended early read bytes past its last record: the records
		// are those judged (and written), the bytes those read.
		fmt.Fprintf(&b, "; %.1f MB read, some never judged, in %.2f s (%.1f MB/s)", float64(s.BytesDecompressed)/1e6, s.Seconds, s.MBPerSecond)
	} else {
		fmt.Fprintf(&b, "; %.1f MB in %.2f s (%.1f MB/s)", float64(s.BytesDecompressed)/1e6, s.Seconds, s.MBPerSecond)
	}
	if f := s.framingText(); f != "" {
		b.WriteString("; read as ")
		b.WriteString(f)
	}
	// A URL that yielded no card is an input error too, but nothing was
	// unreadable: it served no card, for the reasons counted.
	var noCard int64
	for _, n := range s.FetchFailures {
		noCard += n
	}
	if unreadable := s.InputErrors - noCard; unreadable > 0 {
		fmt.Fprintf(&b, "; %d of %s unreadable", unreadable, plural(s.Inputs, "input"))
	}
	if noCard > 0 {
		fmt.Fprintf(&b, "; %d of %s served no card (%s)", noCard, plural(s.Inputs, "input"), countsText(s.FetchFailures))
	}
	if p := s.Probes; p != nil {
		fmt.Fprintf(&b, "; %s probed: %d answering, %d asking for credentials, %d wrong binding, %d TLS problems, %d unreachable",
			plural(p.Interfaces, "interface"), p.Answering, p.AuthRequired, p.WrongBinding, p.TLS, p.Unreachable)
		if p.NotProbed > 0 {
			fmt.Fprintf(&b, ", %d not probed", p.NotProbed)
		}
	}
	if s.StoppedEarly {
		b.WriteString("; stopped early at --max-invalid")
	}
	if s.Interrupted {
		b.WriteString("; interrupted")
	}
	if len(s.Rules) > 0 {
		type kv struct {
			k string
			v int64
		}
		var top []kv
		for k, v := range s.Rules {
			top = append(top, kv{k, v})
		}
		sort.Slice(top, func(i, j int) bool {
			if top[i].v != top[j].v {
				return top[i].v > top[j].v
			}
			return top[i].k < top[j].k
		})
		b.WriteString("; top rules:")
		for i, r := range top[:min(3, len(top))] {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %s %d", r.k, r.v)
		}
	}
	return b.String()
}

// countsText lists counts as "a 2, b 1", largest first, then by name.
func countsText(m map[string]int64) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// framingText says how the inputs were framed: "ndjson" when all of them
// were read one way, else counts such as "2 ndjson, 1 json".
func (s *Summary) framingText() string {
	var names []string
	for name, n := range s.Framings {
		if n > 0 {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 1 {
		return names[0]
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%d %s", s.Framings[name], name)
	}
	return strings.Join(parts, ", ")
}

// plural is "1 record", "0 records", "2 records".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// outcomesText lists the signature outcomes other than verified that
// occurred, in SignatureOutcomes' order: "untrusted-origin 2, expired 1".
func outcomesText(m map[string]int64) string {
	var parts []string
	for _, k := range SignatureOutcomes[1:] {
		if n := m[k]; n > 0 {
			parts = append(parts, k+" "+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, ", ")
}
