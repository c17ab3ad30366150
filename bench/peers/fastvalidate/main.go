// Command fastvalidate judges each record with cardscan's fastvalidate in
// process, one Validator on one goroutine: the library's single-core speed.
package main

import (
	"flag"

	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/cardscan/cardscan/fastvalidate"
)

var profile = flag.String("profile", "agentcard", "fastvalidate `profile`")

func main() {
	// The tool name is known only after the flags are parsed; Main reports
	// whatever name setup leaves here.
	driver.MainNamed(func() (string, driver.Judge, driver.Explain) {
		v, err := fastvalidate.New(*profile)
		if err != nil {
			driver.Fatal(err)
		}
		judge := func(rec []byte) bool { return v.Validate(rec).Valid() }
		explain := func(rec []byte) (bool, string) {
			res := v.Validate(rec)
			if res.Valid() {
				return true, ""
			}
			for _, f := range res.Findings() {
				if f.Severity == fastvalidate.SeverityError {
					return false, f.Path + ": " + f.Code.String() + ": " + f.Message()
				}
			}
			return false, "invalid"
		}
		return "cardscan " + *profile + " (in-process)", judge, explain
	})
}
