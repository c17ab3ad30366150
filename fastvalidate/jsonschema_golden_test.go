package fastvalidate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONSchema_Golden holds each profile's schema to its golden file
// under testdata/jsonschema (go test -update rewrites them).
func TestJSONSchema_Golden(t *testing.T) {
	for _, p := range SchemaProfiles() {
		b, err := JSONSchema(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		path := filepath.Join("testdata", "jsonschema", strings.ReplaceAll(p, "/", "-")+".schema.json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if string(b) != string(want) {
			t.Errorf("%s: the generated schema differs from %s (run go test -update after checking)", p, path)
		}
	}
	if _, err := JSONSchema("auto"); err == nil {
		t.Error("JSONSchema(auto) wrote a schema; auto is a choice among profiles, not one")
	}
}
