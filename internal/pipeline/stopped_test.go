package pipeline

import "testing"

// TestStoppedReaderOpensNoInput: the reader of a run that has stopped
// (the writer returned at --max-invalid, an output error or an
// interrupt) opens no further input, and maps none: it would only cost,
// after Run has returned.
func TestStoppedReaderOpensNoInput(t *testing.T) {
	path, _ := mappedCards(t)
	var opened int
	watchMapping(t, func(Input) { opened++ })
	readHook = func(Input) { opened++ }
	t.Cleanup(func() { readHook = nil })
	for _, jobs := range []int{1, 2} {
		cfg := Config{Profile: "agentcard", Jobs: jobs, ChunkSize: DefaultChunkSize, MaxRecord: DefaultMaxRecord,
			Progress: new(Progress), Diagnose: func(string) {}, Note: func(string) {}}
		p := newPipeline(&cfg)
		p.halt()
		p.read([]Input{{Name: "in", Path: path}, {Name: "again", Path: path}})
		if opened != 0 {
			t.Errorf("-j %d: the reader of a stopped run opened %d inputs, want none", jobs, opened)
		}
		opened = 0
	}
}
