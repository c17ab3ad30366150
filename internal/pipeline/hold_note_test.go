package pipeline

import "testing"

// TestDropNote: the note on records dropped with a corrupt input reads in
// English for one record too.
func TestDropNote(t *testing.T) {
	for n, want := range map[int64]string{
		1: "; the record read from it before was not written (--on-corrupt drop)",
		3: "; the 3 records read from it before were not written (--on-corrupt drop)",
	} {
		if got := dropNote(n); got != want {
			t.Errorf("dropNote(%d) = %q, want %q", n, got, want)
		}
	}
}
