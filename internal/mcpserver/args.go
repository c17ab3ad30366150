package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// decodeArgs decodes a tool's arguments into dst. The arguments must be one
// JSON object naming each property of schema at most once, the required
// ones at least once, and nothing else; the error says which argument was
// wrong and how, in words a model can act on.
//
// Members are matched by exact name (encoding/json alone would take "Card"
// for "card"), and json.RawMessage fields keep the bytes as sent.
func decodeArgs(raw json.RawMessage, schema *jsonschema.Schema, dst any) error {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("arguments: want a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("arguments: %v", err)
		}
		name := tok.(string) // a member name: the decoder checks it is a string
		if _, known := schema.Properties[name]; !known {
			return fmt.Errorf("unknown argument %q; the arguments are %s", name, argNames(schema))
		}
		if seen[name] {
			return fmt.Errorf("argument %q given twice", name)
		}
		seen[name] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("argument %q: %v", name, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("arguments: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("arguments: data after the object")
	}
	for _, name := range schema.Required {
		if !seen[name] {
			return fmt.Errorf("missing argument %q (%s)", name, schema.Properties[name].Description)
		}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("argument %q: want %s, got %s", te.Field, article(te.Type.Kind().String()), article(te.Value))
		}
		return fmt.Errorf("arguments: %v", err)
	}
	return nil
}

func argNames(schema *jsonschema.Schema) string {
	names := make([]string, 0, len(schema.Properties))
	for n := range schema.Properties {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// article puts "a" or "an" before a JSON or Go type name.
func article(noun string) string {
	if noun != "" && strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an " + noun
	}
	return "a " + noun
}
