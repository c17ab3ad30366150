package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/summary"
)

// TestCountsPerInputAndProfile: each input's invalid records are counted
// once whatever the chunking, held compressed inputs included, and each
// profile's cards are split into valid and invalid.
func TestCountsPerInputAndProfile(t *testing.T) {
	bad := strings.Replace(card, `"agent_id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"`, `"agent_id":"short"`, 1)
	dir := t.TempDir()
	// name: valid cards, invalid cards, lines that are not JSON
	specs := []struct {
		name                  string
		valid, invalid, trash int
		gzip                  bool
	}{
		{"a.ndjson", 50, 3, 0, false},
		{"b.ndjson", 0, 0, 0, false}, // empty
		{"c.ndjson.gz", 20, 40, 2, true},
		{"d.ndjson", 200, 0, 0, false}, // clean: not among the worst
		{"<script>.ndjson", 1, 1, 1, false},
		{"e.ndjson.gz", 10, 42, 0, true},
	}
	var inputs []Input
	var want []summary.InputCount
	var wantInvalid = map[string]int64{}
	for _, s := range specs {
		var b bytes.Buffer
		for i := range s.valid + s.invalid + s.trash {
			switch {
			case i < s.invalid:
				b.WriteString(bad)
			case i < s.invalid+s.trash:
				b.WriteString("not json")
			default:
				b.WriteString(card)
			}
			b.WriteByte('\n')
		}
		data := b.Bytes()
		if s.gzip {
			var z bytes.Buffer
			w := gzip.NewWriter(&z)
			w.Write(data)
			w.Close()
			data = z.Bytes()
		}
		path := filepath.Join(dir, s.name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Name: s.name, Path: path, Framing: FramingNDJSON})
		want = summary.KeepWorst(want, summary.InputCount{Input: s.name, Records: int64(s.valid + s.invalid + s.trash), Invalid: int64(s.invalid + s.trash)})
		wantInvalid["agentcard"] += int64(s.invalid)
		wantInvalid[""] += int64(s.trash)
	}
	inputs = append(inputs, Input{Name: "missing", Path: filepath.Join(dir, "missing")})
	// A compressed input cut short: what it yields before the break
	// depends on the chunking, and with HoldCompressed nothing is kept.
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	for range 300 {
		w.Write([]byte(bad + "\n"))
	}
	w.Close()
	cut := filepath.Join(dir, "cut.ndjson.gz")
	if err := os.WriteFile(cut, z.Bytes()[:z.Len()-20], 0o644); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, Input{Name: "cut.ndjson.gz", Path: cut, Framing: FramingNDJSON})
	for _, chunk := range []int{64, 1 << 20} {
		for _, hold := range []bool{false, true} {
			t.Run(fmt.Sprintf("chunk %d hold %v", chunk, hold), func(t *testing.T) {
				st, err := Run(Config{Profile: "auto", Jobs: 2, ChunkSize: chunk, MaxRecord: 1 << 20,
					HoldCompressed: hold, Diagnose: func(string) {}}, inputs)
				if err != nil {
					t.Fatal(err)
				}
				// Fewer inputs than a summary keeps: every invalid record
				// is in one of them.
				var sum, cutInvalid int64
				worst := st.WorstInputs[:0:0]
				for _, c := range st.WorstInputs {
					sum += c.Invalid
					if c.Input == "cut.ndjson.gz" {
						cutInvalid = c.Invalid
						continue
					}
					worst = append(worst, c)
				}
				if sum != st.Invalid {
					t.Errorf("the worst inputs hold %d invalid records of %d", sum, st.Invalid)
				}
				t.Logf("cut input: %d invalid", cutInvalid)
				if hold && cutInvalid != 0 {
					t.Errorf("the dropped input is listed with %d invalid records", cutInvalid)
				}
				if !reflect.DeepEqual(worst, want) {
					t.Errorf("worst inputs\n%v\nwant\n%v", worst, want)
				}
				gotInvalid := maps.Clone(st.ProfileInvalid)
				gotInvalid["agentcard"] -= cutInvalid
				if !reflect.DeepEqual(gotInvalid, wantInvalid) {
					t.Errorf("invalid cards by profile %v, want %v", st.ProfileInvalid, wantInvalid)
				}
			})
		}
	}
}
