package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoFramingIgnoresChunkSize: a first line longer than MaxRecord is
// NDJSON however much of it the first read brought in. The read path used
// to decide on the whole first chunk, so a line of two cards (JSON when
// seen whole) was JSON with a chunk larger than the line and NDJSON with a
// smaller one or when mapped: its records and their count hung on
// --chunk-size and -j.
func TestAutoFramingIgnoresChunkSize(t *testing.T) {
	const maxRecord = 1000
	other := `{"padding":"` + strings.Repeat("x", maxRecord) + `"}`
	first := card + " " + other + "\n" // not one value, longer than MaxRecord
	input := first + strings.Repeat(card+"\n", (1<<20)/(len(card)+1)+1)
	path := filepath.Join(t.TempDir(), "cards")
	if err := os.WriteFile(path, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := int64(strings.Count(input, "\n"))
	for _, chunk := range []int{256, 4096, 1 << 20} {
		for _, jobs := range []int{1, 2} {
			for _, in := range []Input{{Name: "in"}, {Name: path, Path: path}} {
				st, err := Run(Config{Profile: "agentcard", Jobs: jobs, ChunkSize: chunk, MaxRecord: maxRecord,
					Stdin: strings.NewReader(input)}, []Input{in})
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("chunk %d, -j %d, file %v", chunk, jobs, in.Path != "")
				if st.Framings[FramingNDJSON.String()] != 1 || st.Records != lines || st.Invalid != 1 {
					t.Errorf("%s: framings %v, %d records, %d invalid; want ndjson, %d records, 1 invalid",
						where, st.Framings, st.Records, st.Invalid, lines)
				}
			}
		}
	}
}
