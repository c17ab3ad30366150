package dump

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cardscan/cardscan/internal/report"
)

// TestCrossSpilledGroupsSameOutput: claims that spill, in groups whose
// places and others spill too (one identity on 3,000 records, one
// endpoint, one content), give the findings byte for byte as in memory,
// in every format, the places streamed where a group's spilled.
func TestCrossSpilledGroupsSameOutput(t *testing.T) {
	var claims []byte
	for i := range 3000 {
		input := fmt.Sprintf("dir/in-%d.ndjson", i%3)
		sum := fmt.Appendf(nil, "%016d", i%700)
		claims = appendClaim(claims, groupID, []byte("agent_id same"), sum, input, i+1)
		claims = appendClaim(claims, groupEndpoint, []byte("https://a.example/rpc"), fmt.Appendf(nil, "agent_id id-%d", i%5), input, i+1)
		claims = appendClaim(claims, groupContent, sum, nil, input, i+1)
		claims = appendClaim(claims, groupID, fmt.Appendf(nil, "url https://u.example/%d", i), sum, input, i+1)
	}
	finish := func(memory int64, format report.Format) (string, *CrossCounts, bool) {
		c, err := NewCross(memory)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Whole claims per add, as the pipeline hands them.
		var batch []byte
		for rest, i := claims, 1; len(rest) > 0; i++ {
			rec, r, _ := nextDigest(rest)
			batch = append(batch, rest[:4+len(rec)]...)
			if rest = r; i%50 == 0 || len(rest) == 0 {
				if err := c.Add(batch); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		var out bytes.Buffer
		counts, err := c.Finish(format.Writer(&out, report.WriterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), counts, c.st.spilled()
	}
	for _, format := range []report.Format{report.FormatJSONL, report.FormatText, report.FormatGitHub, report.FormatSARIF} {
		want, wantCounts, spilled := finish(1<<30, format)
		if spilled || len(want) < 3000*10 {
			t.Fatalf("%s in memory: spilled %v, %d bytes", format, spilled, len(want))
		}
		got, counts, spilled := finish(4<<10, format)
		if !spilled {
			t.Fatalf("%s: 4 KiB did not spill", format)
		}
		if got != want {
			t.Errorf("%s: spilled output differs: %d bytes, want %d\n%.300s\nwant\n%.300s", format, len(got), len(want), got, want)
		}
		if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
			t.Errorf("%s: counts %v, want %v", format, counts, wantCounts)
		}
	}
}
