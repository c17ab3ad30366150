package compare

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Expected is the verdict a corpus's author worked out for one card from
// the specifications, independently of any tool.
type Expected struct {
	Verdict string // "valid", "invalid", or "ijson" (left open by the JSON RFCs)
	What    string // how the card differs from the corpus's base card
	Why     string // the rule that decides, where tools disagree
}

// ReadExpected reads an expectations file: a TSV of record, verdict, what,
// why, with # comment lines, one row for every record in order.
func ReadExpected(path string) ([]Expected, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Expected
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, "\t", 4)
		if len(fields) < 3 || fields[0] != strconv.Itoa(len(out)) {
			return nil, fmt.Errorf("%s:%d: want record %d<TAB>verdict<TAB>what[<TAB>why]", path, n, len(out))
		}
		e := Expected{Verdict: fields[1], What: fields[2]}
		if len(fields) == 4 {
			e.Why = fields[3]
		}
		switch e.Verdict {
		case "valid", "invalid", "ijson":
		default:
			return nil, fmt.Errorf("%s:%d: verdict %q is not valid, invalid or ijson", path, n, e.Verdict)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Score is how one tool's verdicts compare with the expected ones.
type Score struct {
	Key, Name string
	Judged    int   // records with a valid or invalid expectation
	Wrong     []int // records where the tool's verdict differs from it
	// IJSONPassed counts the records that are not I-JSON which the tool
	// passed; IJSON counts them all.
	IJSONPassed, IJSON int
}

// score compares verdicts with expectations, record by record.
func score(key, name string, verdicts []Verdict, want []Expected) Score {
	s := Score{Key: key, Name: name}
	for i := range min(len(verdicts), len(want)) {
		switch want[i].Verdict {
		case "ijson":
			s.IJSON++
			if verdicts[i].OK {
				s.IJSONPassed++
			}
		default:
			s.Judged++
			if verdicts[i].OK != (want[i].Verdict == "valid") {
				s.Wrong = append(s.Wrong, i)
			}
		}
	}
	return s
}
