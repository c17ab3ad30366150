package trustfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// ReadRoot parses a policy file (or a trust policy file) under the
// hostile-input limits of scan and returns its one document's body,
// nil for an empty file. Errors name the file, line and column.
func ReadRoot(path string, src []byte) (ast.Node, error) {
	at := func(n ast.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, n.GetToken().Position.Line, fmt.Sprintf(format, args...))
	}
	// YAML 1.2 reads JSON as well, so one parser serves the three names.
	// Its errors, duplicate keys among them, carry the line and column.
	tokens, err := scan(path, src)
	if err != nil {
		return nil, err
	}
	file, err := parser.Parse(tokens, 0)
	if err != nil {
		msg := yaml.FormatError(err, false, false)
		if m := yamlPosition().FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s:%s: %s", path, m[1], m[2], strings.TrimSpace(msg[len(m[0]):]))
		}
		return nil, fmt.Errorf("%s: %s", path, strings.TrimSpace(msg))
	}
	var root ast.Node
	for _, doc := range file.Docs {
		if doc.Body == nil {
			continue
		}
		if root != nil {
			return nil, at(doc.Body, "a second document: a policy file holds one")
		}
		root = doc.Body
	}
	return root, nil
}

// yamlPosition finds the line and column in a YAML error. It is compiled
// on first use: only a policy file that does not parse reads it, and
// every start of cardscan would pay a compile at init.
var yamlPosition = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(\d+):(\d+)\] `) })

// MappingEntries returns the entries of a mapping; a mapping of one entry
// may parse as the entry alone.
func MappingEntries(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		return n.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}, true
	}
	return nil, false
}

// Scalar returns the text of a string, number or boolean. A policy file's
// values are words (off, error, agentcard), which YAML 1.1 would read as
// booleans: taking the text as written keeps them the words they are.
func Scalar(n ast.Node) (string, bool) {
	switch n := n.(type) {
	case *ast.StringNode:
		return n.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return n.GetToken().Value, true
	}
	return "", false
}

// NodeKind names what n is, for an error saying what was found instead.
func NodeKind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.NullNode:
		return "nothing"
	case *ast.AnchorNode, *ast.AliasNode, *ast.TagNode:
		return "an anchor, alias or tag (not supported here)"
	}
	if s, ok := Scalar(n); ok {
		return strconv.Quote(s)
	}
	return "something else"
}
