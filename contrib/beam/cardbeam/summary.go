package cardbeam

import (
	"encoding/json"
	"slices"
	"strings"
)

// Summary has the JSON shape of cardscan's --summary, for the counts a
// pipeline computes, so that cardscan summary merge adds it to the
// summaries of cardscan's own runs. It holds no timing: seconds and
// mb_per_second stay 0 (a pipeline's wall clock is its runner's).
type Summary struct {
	Records           int64               `json:"records"`
	Valid             int64               `json:"valid"`
	Invalid           int64               `json:"invalid"`
	Errors            int64               `json:"errors"`
	Warnings          int64               `json:"warnings"`
	Rules             map[string]int64    `json:"rules"`
	Profiles          map[string]int64    `json:"profiles"`
	ProfileVerdicts   map[string]Verdicts `json:"profile_verdicts,omitempty"`
	Inputs            int64               `json:"inputs"`
	InputErrors       int64               `json:"input_errors"`
	Framings          map[string]int64    `json:"framings"`
	BytesRead         int64               `json:"bytes_read"`
	BytesDecompressed int64               `json:"bytes_decompressed"`
	Seconds           float64             `json:"seconds"`
	MBPerSecond       float64             `json:"mb_per_second"`
	StoppedEarly      bool                `json:"stopped_early"`
	Interrupted       bool                `json:"interrupted"`
	Shards            int64               `json:"shards"`
	WorstInputs       []InputCount        `json:"worst_inputs,omitempty"`
	SchemaWouldPass   int64               `json:"schema_would_pass,omitempty"`
	// Unread names the first inputs that could not be read whole, with
	// why, for the pipeline's error; it is not written.
	Unread []string `json:"unread,omitempty"`
}

// Verdicts counts one profile's cards by verdict.
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

// maxWorstInputs is cardscan's bound on worst_inputs.
const maxWorstInputs = 20

// maxUnread bounds Summary.Unread: an error names a few inputs, and a
// crawl of many broken ones does not grow the summary.
const maxUnread = 10

func newSummary() Summary {
	return Summary{Rules: map[string]int64{}, Profiles: map[string]int64{}, Framings: map[string]int64{},
		ProfileVerdicts: map[string]Verdicts{}}
}

// worse orders inputs as cardscan does: by invalid records, most first,
// then by the larger invalid share (fewer records), then by name.
func worse(a, b InputCount) int {
	switch {
	case a.Invalid != b.Invalid:
		if a.Invalid > b.Invalid {
			return -1
		}
		return 1
	case a.Records != b.Records:
		if a.Records < b.Records {
			return -1
		}
		return 1
	}
	return strings.Compare(a.Input, b.Input)
}

// add adds o's counts to s. A pipeline is one run: its summary says
// shards 1 however many workers added to it.
func (s *Summary) add(o Summary) {
	s.Records += o.Records
	s.Valid += o.Valid
	s.Invalid += o.Invalid
	s.Errors += o.Errors
	s.Warnings += o.Warnings
	s.Inputs += o.Inputs
	s.InputErrors += o.InputErrors
	s.BytesRead += o.BytesRead
	s.BytesDecompressed += o.BytesDecompressed
	s.SchemaWouldPass += o.SchemaWouldPass
	addCounts(s.Rules, o.Rules)
	addCounts(s.Profiles, o.Profiles)
	addCounts(s.Framings, o.Framings)
	for k, v := range o.ProfileVerdicts {
		w := s.ProfileVerdicts[k]
		w.Valid += v.Valid
		w.Invalid += v.Invalid
		s.ProfileVerdicts[k] = w
	}
	s.WorstInputs = append(s.WorstInputs, o.WorstInputs...)
	slices.SortFunc(s.WorstInputs, worse)
	s.WorstInputs = s.WorstInputs[:min(len(s.WorstInputs), maxWorstInputs)]
	s.Unread = append(s.Unread, o.Unread...)
	slices.Sort(s.Unread)
	s.Unread = s.Unread[:min(len(s.Unread), maxUnread)]
}

func addCounts(dst, src map[string]int64) {
	for k, v := range src {
		dst[k] += v
	}
}

// MarshalSummary is the summary as cardscan writes it: keys sorted
// (encoding/json sorts map keys), maps never null, indented.
func MarshalSummary(s Summary) ([]byte, error) {
	s.Shards = 1
	s.Unread = nil
	for _, m := range []*map[string]int64{&s.Rules, &s.Profiles, &s.Framings} {
		if *m == nil {
			*m = map[string]int64{}
		}
	}
	if len(s.ProfileVerdicts) == 0 {
		s.ProfileVerdicts = nil
	}
	// Through a map, so that the members come out sorted as cardscan's.
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(m, "", "  ")
	return append(out, '\n'), err
}
