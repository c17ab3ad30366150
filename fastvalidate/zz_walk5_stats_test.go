package fastvalidate

import (
	"fmt"
	"sort"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/internal/tape"
)

func BenchmarkZZWalk5Stats(t *testing.B) {
	cards := contentDumpCards(t)
	var sc tape.Scanner
	sc.MaxDepth = 64
	sc.PickKeys(contentKeys)
	names := map[string]int{}
	var picked, kept, unsorted, wide, esc, texts int
	for _, c := range cards {
		if !sc.Scan(c) {
			continue
		}
		vw := sc.View()
		p := sc.Picked()
		var top uint64
		for _, x := range p {
			picked++
			k := uint32(x)
			kind := vw.Kind(k + 1)
			key := fmt.Sprintf("%s/%d/%d", vw.Name(k), kind, classifyMember(vw.Name(k)))
			names[key]++
			if kind == tape.KindString || kind == tape.KindArray {
				kept++
				if x < top {
					unsorted++
				}
				if kind == tape.KindString && classifyMember(vw.Name(k)) != memberOther && classifyMember(vw.Name(k)) != memberLink {
					texts++
					f := vw.Flags(k + 1)
					if f&tape.FlagEscaped != 0 {
						esc++
					} else if f&tape.FlagNonASCII != 0 {
						wide++
					}
				}
			}
			top = max(top, x)
		}
	}
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range names {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	for _, e := range l[:min(40, len(l))] {
		fmt.Printf("%8d %s\n", e.v, e.k)
	}
	fmt.Println("cards", len(cards), "picked", picked, "kept", kept, "unsorted", unsorted, "texts(str)", texts, "escaped", esc, "wide", wide)
}
