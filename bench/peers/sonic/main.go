// Command sonic checks each record with bytedance/sonic's JIT/SIMD syntax
// validator.
package main

import (
	"github.com/bytedance/sonic"
	"github.com/cardscan/cardscan/bench/internal/driver"
)

func main() {
	driver.Main("sonic.Valid", func() (driver.Judge, driver.Explain) {
		return sonic.Valid, func(rec []byte) (bool, string) { return sonic.Valid(rec), "not valid JSON" }
	})
}
