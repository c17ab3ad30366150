// Command a2ago decodes each record into the A2A Go SDK's AgentCard with
// encoding/json, which is all a Go gateway built on the SDK checks today: a
// card passes when it decodes.
package main

import (
	"encoding/json"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/cardscan/cardscan/bench/internal/driver"
)

func main() {
	driver.Main("a2a-go AgentCard decode", func() (driver.Judge, driver.Explain) {
		judge := func(rec []byte) bool {
			var card a2a.AgentCard
			return json.Unmarshal(rec, &card) == nil
		}
		explain := func(rec []byte) (bool, string) {
			var card a2a.AgentCard
			if err := json.Unmarshal(rec, &card); err != nil {
				return false, err.Error()
			}
			return true, ""
		}
		return judge, explain
	})
}
