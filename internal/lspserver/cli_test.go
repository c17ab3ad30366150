package lspserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

type cliFinding struct {
	Rule, Path   string
	Line, Column int
}

// jsonlFindings renders text's verdict as the CLI's --format jsonl does
// and reads back each finding's rule, path, line and column.
func jsonlFindings(t *testing.T, v *fastvalidate.Validator, text []byte, out *bytes.Buffer) []cliFinding {
	t.Helper()
	card, line, col, off := report.Start(text)
	verdict := report.FromResult("card.json", line, col, off, card, v.Validate(card))
	var e report.Encoder
	out.Write(e.AppendJSONL(nil, &verdict))
	var rec struct{ Errors, Warnings []cliFinding }
	if err := json.Unmarshal(out.Bytes(), &rec); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return append(rec.Errors, rec.Warnings...)
}
