package trustfile

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/visible"
)

// ReadRoot parses a policy file (or a trust policy file) under the
// hostile-input limits of scan and returns its one document's body,
// nil for an empty file. Errors name the file, line and column.
func ReadRoot(path string, src []byte) (ast.Node, error) {
	at := func(n ast.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, n.GetToken().Position.Line, fmt.Sprintf(format, args...))
	}
	// A byte order mark may start a YAML 1.2 stream (5.2) and is no part
	// of its first key; the positions the parser gives are then those of
	// the file without it, as an editor counts them.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	if bad := invalidUTF8(src); bad >= 0 {
		// The parser would read each such byte as U+FFFD, so that a glob
		// or a path holding one silently matched or named nothing.
		line, column := report.LineColumn(src, bad)
		return nil, fmt.Errorf("%s:%d:%d: not UTF-8 (byte 0x%02x): a policy file is UTF-8 text", path, line, column, src[bad])
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

// invalidUTF8 returns the offset of the first byte of src that is not
// UTF-8, or -1.
func invalidUTF8(src []byte) int {
	if utf8.Valid(src) {
		return -1
	}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
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
	case *ast.MergeKeyNode:
		return "a merge key (<<), which a policy file takes none of"
	case *ast.AnchorNode, *ast.AliasNode, *ast.TagNode:
		return "an anchor, alias or tag (not supported here)"
	}
	if s, ok := Scalar(n); ok {
		return Quote(s)
	}
	return "something else"
}

// quoteMax is how many bytes of a scalar an error quotes.
const quoteMax = 64

// Quote quotes s for an error, only its start and its size when it is
// long (visible.QuoteCut): a policy file of one 1 MiB value would
// otherwise make a 1 MiB line of a CI log.
func Quote(s string) string { return visible.QuoteCut(s, quoteMax) }
