// Command fastjson parses each record with one reused fastjson.Parser and
// checks nothing else: the cost of reading a card's JSON fast, leniently.
package main

import (
	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/valyala/fastjson"
)

func main() {
	driver.Main("fastjson parse", func() (driver.Judge, driver.Explain) {
		var p fastjson.Parser
		judge := func(rec []byte) bool {
			_, err := p.ParseBytes(rec)
			return err == nil
		}
		explain := func(rec []byte) (bool, string) {
			if _, err := p.ParseBytes(rec); err != nil {
				return false, err.Error()
			}
			return true, ""
		}
		return judge, explain
	})
}
