// Command stdjson checks each record with encoding/json.Valid: syntax only.
package main

import (
	"encoding/json"

	"github.com/cardscan/cardscan/bench/internal/driver"
)

func main() {
	driver.Main("encoding/json.Valid", func() (driver.Judge, driver.Explain) {
		return json.Valid, func(rec []byte) (bool, string) { return json.Valid(rec), "not valid JSON" }
	})
}
