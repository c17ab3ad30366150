package htmlreport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"

	"github.com/cardscan/cardscan/internal/summary"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Change kinds, as cardscan diff names them, in the order the report
// shows them.
var changeKinds = []string{"added", "broke", "fixed", "signer-changed", "changed", "removed"}

// MaxListed bounds the records listed per change kind: a diff of two
// large crawls may change millions of keys, and a page is read by people.
const MaxListed = 50

// maxLine bounds a diff record: one card's changes and errors, which the
// validator caps, fit with room to spare.
const maxLine = 16 << 20

// Diff is what the report keeps of a cardscan diff: every record counted,
// the first MaxListed of each kind listed.
type Diff struct {
	Counts map[string]int64 // records per change kind; "other" for kinds not known here
	Listed map[string][]Listed
	// Records counts the diff records read; Skipped the JSON objects
	// without a change member (a summary line, say), which are left out.
	Records, Skipped int64
}

// Change is one diff record: a key that was added, removed, broke, was
// fixed or changed. Members the report does not show are ignored.
type Change struct {
	Change  string   `json:"change"`
	Key     string   `json:"key"`
	KeyKind string   `json:"key_kind"`
	Profile string   `json:"profile"`
	Old     *Side    `json:"old"`
	New     *Side    `json:"new"`
	Changes []Member `json:"changes"`
	Errors  []Error  `json:"errors"`
}

// Side is where a key's card was in one of the two dumps.
type Side struct {
	Input string `json:"input"`
	Line  int64  `json:"line"`
	Valid *bool  `json:"valid"`
}

// Member is one changed member of a card.
type Member struct {
	Pointer string         `json:"pointer"`
	What    string         `json:"what"`
	Old     jsontext.Value `json:"old"`
	New     jsontext.Value `json:"new"`
}

// Error is a finding on the new card of a key that broke.
type Error struct {
	Rule    string `json:"rule"`
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// Listed is a diff record as the page lists it, each text already cut to
// what the page shows and escaped for it: a record of megabytes (a key
// that long, thousands of changed members) is kept in a few kilobytes,
// so that the listings' memory does not grow with the records' size.
type Listed struct {
	Key, KeyKind, Profile template.HTML // KeyKind is "" when the record has none
	Old, New              *ListedSide
	Changes               []ListedMember // the first maxChanges
	Errors                []ListedError  // the first maxChanges
}

// ListedSide is a Side as the page lists it.
type ListedSide struct {
	Input template.HTML
	Line  int64
}

// ListedMember is a changed member as the page lists it; Old and New are
// both "" when the record gives neither value.
type ListedMember struct {
	Pointer, What, Old, New template.HTML
}

// ListedError is an Error as the page lists it; Message is "" when the
// record has none.
type ListedError struct {
	Rule, Pointer, Message template.HTML
}

// listed is c as the page lists it.
func (c *Change) listed() Listed {
	l := Listed{Key: text(c.Key), KeyKind: optionalText(c.KeyKind), Profile: text(c.Profile),
		Old: c.Old.listed(), New: c.New.listed()}
	for _, m := range c.Changes[:min(len(c.Changes), maxChanges)] {
		lm := ListedMember{Pointer: text(m.Pointer), What: text(m.What)}
		if m.Old != nil || m.New != nil {
			lm.Old, lm.New = value(m.Old), value(m.New)
		}
		l.Changes = append(l.Changes, lm)
	}
	for _, e := range c.Errors[:min(len(c.Errors), maxChanges)] {
		l.Errors = append(l.Errors, ListedError{Rule: text(e.Rule), Pointer: text(e.Pointer), Message: optionalText(e.Message)})
	}
	return l
}

func (s *Side) listed() *ListedSide {
	if s == nil {
		return nil
	}
	return &ListedSide{Input: text(s.Input), Line: s.Line}
}

// ReadDiff reads cardscan diff's JSONL output. A line that is not a JSON
// object fails the read, naming the line, column and JSON Pointer of the
// fault (a *summary.DecodeError); so does a file of objects none
// of which is a diff record, which is more likely a file given by mistake
// than a diff.
func ReadDiff(r io.Reader) (*Diff, error) {
	d := &Diff{Counts: map[string]int64{}, Listed: map[string][]Listed{}}
	known := map[string]bool{}
	for _, k := range changeKinds {
		known[k] = true
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for n := 1; ; n++ {
		var err error
		line, err = readLine(br, line[:0])
		if len(bytes.TrimSpace(line)) > 0 {
			var c Change
			if err := decodeChange(line, &c); err != nil {
				return nil, lineError(n, line, err)
			}
			switch {
			case c.Change == "":
				d.Skipped++
			case known[c.Change]:
				d.Records++
				d.Counts[c.Change]++
				if len(d.Listed[c.Change]) < MaxListed {
					d.Listed[c.Change] = append(d.Listed[c.Change], c.listed())
				}
			default:
				d.Records++
				d.Counts["other"]++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if d.Records == 0 && d.Skipped > 0 {
		return nil, fmt.Errorf("none of its %d JSON objects is a diff record (no \"change\" member)", d.Skipped)
	}
	return d, nil
}

// decodeChange decodes one diff line as tolerantly as encoding/json did
// (a member given twice is its last, invalid UTF-8 is kept, names match
// in any case), through jsonv2, which says where a fault is.
func decodeChange(line []byte, c *Change) error {
	return jsonv2.Unmarshal(line, c, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true),
		jsonv2.MatchCaseInsensitiveNames(true))
}

// lineError is the fault err of the diff's line n: a *summary.DecodeError
// on line n, at the column and JSON Pointer of the fault, when the
// decoder says where it is.
func lineError(n int, line []byte, err error) error {
	var de *summary.DecodeError
	if errors.As(summary.LocateError(line, err), &de) {
		de.Line = n
		de.Msg = "not a diff record: " + de.Msg
		if string(bytes.TrimSpace(line)) == "{" {
			// An object that goes on past its line: pretty-printed
			// JSON, such as a --summary file given in the diff's place.
			de.Msg += " (a diff is JSONL, one JSON object a line, as cardscan diff --format jsonl writes it; this object goes on past its line)"
		}
		return de
	}
	return fmt.Errorf("line %d: not a diff record: %v", n, err)
}

// readLine appends the next line to buf, without its ending, refusing one
// longer than maxLine rather than holding it.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}
