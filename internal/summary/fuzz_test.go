package summary

import "testing"

// FuzzMergeReadsBack: whatever Unmarshal accepts, summary merge adds up
// and writes; what it writes must be a summary Unmarshal accepts again,
// or a total of shards could not be merged with another.
func FuzzMergeReadsBack(f *testing.F) {
	f.Add([]byte(`{"records":3,"valid":1,"invalid":2,"errors":2,"warnings":1,"rules":{"a":2,"b":1},"profiles":{"a2a/1.0":2,"none":1},"profile_verdicts":{"a2a/1.0":{"valid":1,"invalid":1},"none":{"valid":0,"invalid":1}},"inputs":1,"input_errors":0,"framings":{"ndjson":1},"bytes_read":10,"bytes_decompressed":10,"seconds":0.5,"mb_per_second":0,"stopped_early":false,"interrupted":false,"shards":1,"worst_inputs":[{"input":"x","records":3,"invalid":2}]}`))
	f.Add([]byte(`{"records":0,"valid":0,"invalid":0,"signatures":{"signed":0,"verified":0,"findings":0,"outcomes":{"verified":1}},"probes":{"interfaces":1,"answering":1,"auth_required":0,"wrong_binding":0,"tls":0,"unreachable":0,"not_probed":0,"cards_skipped":0},"overrides":{"r":"off"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Unmarshal(b)
		if err != nil {
			return
		}
		var total Summary
		for range 2 {
			if total.Add(s) != nil {
				return // a count past int64, said by name
			}
			out, err := total.Marshal()
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if _, err := Unmarshal(out); err != nil {
				t.Fatalf("the merged summary does not read back: %v\nfrom %s\nwrote %s", err, b, out)
			}
		}
	})
}
