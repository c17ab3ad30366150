package fetch

import (
	"encoding/base64"
	"unicode/utf8"

	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/visible"
)

// record is everything said about one fetched card.
type record struct {
	requested string // the URL as listed
	// vd is the verdict: the profile's findings, borrowed from a
	// validator's Result, then the serving rules'.
	vd   report.Verdict
	card []byte // the card as served; nil when there is none
}

// renderer writes records in one of the output formats. Not safe for
// concurrent use: one per goroutine.
type renderer struct {
	// cards writes --format cards records; else r renders the verdict.
	cards bool
	r     report.Renderer
	enc   report.Encoder
}

func (rd *renderer) append(dst []byte, r *record) []byte {
	vd := &r.vd
	if rd.cards {
		// The CLI's JSONL record, with the URL as listed before it and
		// the card after it.
		dst = append(dst, `{"url":`...)
		dst = report.AppendJSONString(dst, r.requested)
		if !utf8.ValidString(r.requested) {
			// url holds U+FFFD for each bad byte, as input does: the
			// bytes, which --resume matches, go beside it as input's do.
			dst = append(dst, `,"url_base64":"`...)
			dst = base64.StdEncoding.AppendEncode(dst, []byte(r.requested))
			dst = append(dst, '"')
		}
		dst = append(dst, ',')
		dst = rd.enc.AppendJSONMembers(dst, vd)
		dst = append(dst, `,"card":`...)
		dst = appendCard(dst, r.card)
		return append(dst, "}\n"...)
	}
	return rd.r.Verdict(dst, &rd.enc, vd)
}

// appendCard embeds the card: as JSON when it is valid JSON in valid
// UTF-8 (compacted to one line, which changes whitespace only), else as a
// string holding its text, and null when there is none.
func appendCard(dst []byte, card []byte) []byte {
	if card == nil {
		return append(dst, "null"...)
	}
	if compact, ok := compactJSON(card); ok {
		// Hidden characters as \u escapes, as the record's other strings.
		return append(dst, visible.EscapeJSON(compact)...)
	}
	return report.AppendJSONString(dst, string(card))
}
