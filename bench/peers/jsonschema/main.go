// Command jsonschema judges each record with santhosh-tekuri/jsonschema/v6
// against the AgentCard JSON Schema, formats asserted: the way a Go program
// checks cards against the published schema today.
package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"

	"github.com/cardscan/cardscan/bench/internal/driver"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var schemaPath = flag.String("schema", "../shared/specs/agentcard-schema-v1.0.json", "AgentCard JSON Schema `file`")

func main() {
	driver.Main("santhosh-tekuri/jsonschema", func() (driver.Judge, driver.Explain) {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		schema, err := c.Compile(*schemaPath)
		if err != nil {
			driver.Fatal(err)
		}
		judge := func(rec []byte) bool {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec))
			return err == nil && schema.Validate(inst) == nil
		}
		explain := func(rec []byte) (bool, string) {
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec))
			if err != nil {
				return false, "json: " + err.Error()
			}
			if err := schema.Validate(inst); err != nil {
				return false, firstLeaf(err)
			}
			return true, ""
		}
		return judge, explain
	})
}

var english = message.NewPrinter(language.English)

// firstLeaf names the first failing keyword and where it failed, short
// enough for one line of the verdict listing.
func firstLeaf(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	kw := ve.ErrorKind.KeywordPath()
	name := ""
	if len(kw) > 0 {
		name = kw[len(kw)-1]
	}
	return "/" + strings.Join(ve.InstanceLocation, "/") + ": " + name + ": " + ve.ErrorKind.LocalizedString(english)
}
