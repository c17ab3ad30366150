package lspserver

import "strconv"

// complete offers, at a member name, the names the card's release defines
// for the object, and at a member's value its enumerated values.
func (s *Server) complete(p textDocumentPositionParams) any {
	d := s.docs[p.TextDocument.URI]
	if d == nil || d.text == nil {
		return completionList{Items: []completionItem{}}
	}
	li := newLineIndex(d.text, d.enc)
	off := li.offset(p.Position)
	pl := locate(d.text, off)
	items := []completionItem{}
	if !pl.inObject {
		return completionList{Items: items}
	}
	// Inside a string, the item replaces it whole; between tokens it is
	// inserted at the cursor, as the document has it: a column past the
	// line's end is its end.
	at := li.position(off)
	replace := Range{Start: at, End: at}
	if pl.tokStart >= 0 {
		replace = Range{Start: li.position(pl.tokStart), End: li.position(pl.tokEnd)}
	}
	if pl.atKey {
		for _, m := range membersAt(d.judged, pl.container) {
			text := strconv.Quote(m.Name)
			if pl.tokStart < 0 {
				text += ": "
			}
			detail := d.judged
			if m.Required {
				detail += ", required"
			}
			items = append(items, completionItem{Label: m.Name, Kind: completionProperty, Detail: detail,
				Documentation: &markupContent{Kind: "markdown", Value: m.Doc}, FilterText: strconv.Quote(m.Name),
				TextEdit: &TextEdit{Range: replace, NewText: text}})
		}
		return completionList{Items: items}
	}
	m, ok := lookupMember(d.judged, pl.container, pl.key)
	if !ok {
		return completionList{Items: items}
	}
	for _, v := range m.Enum {
		items = append(items, completionItem{Label: v, Kind: completionEnumMember, Detail: m.Name + " (" + d.judged + ")",
			FilterText: strconv.Quote(v), TextEdit: &TextEdit{Range: replace, NewText: strconv.Quote(v)}})
	}
	return completionList{Items: items}
}
