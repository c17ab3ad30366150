// Package trustfile reads cardscan's YAML policy files under the bounds
// a hostile file needs, and a trust policy (docs/signatures.md) from a
// --trust file or a policy file's section: what the scan command, diff,
// verify, serve and fetch share, so that each reads a policy alike.
package trustfile

import (
	"fmt"
	"io"

	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// A policy file arrives with a pull request, so it is read as hostile
// input. The YAML parser has no bounds of its own and its cost grows with
// the square of the nesting and of a mapping's length (97 KB of nested
// block sequences took 3.7 GB and 15 s), so the tokens are counted as
// they are scanned and the parser only ever sees a file within these
// limits. A real policy file nests two levels deep (rules: and its
// entries) and holds a few hundred tokens.
const (
	// MaxTokens bounds the number of tokens (keys, values,
	// punctuation, comments): enough for every rule with a comment each
	// and a thousand globs, and the parser stays within milliseconds.
	MaxTokens = 4096
	// MaxDepth bounds how deep collections nest.
	MaxDepth = 16
)

// scan tokenizes a policy file, stopping at the first token past a
// limit with an error naming the file, line and column. An anchor or an
// alias is refused as soon as it is seen: a policy file's values are
// words, nothing it says needs one, and an alias is how a small YAML file
// stands for a huge one. A token the scanner finds invalid ends the scan;
// the parser then reports it.
func scan(path string, src []byte) (token.Tokens, error) {
	var s scanner.Scanner
	s.Init(string(src))
	var (
		tokens token.Tokens
		depth  policyDepth
		// named is an anchor or alias indicator (& or *), refused with
		// the name the token after it holds.
		named *token.Token
	)
	for {
		scanned, err := s.Scan()
		for _, tk := range scanned {
			if named != nil {
				return nil, namedError(path, named, tk.Value)
			}
			if len(tokens) == MaxTokens {
				return nil, tokenError(path, tk, fmt.Sprintf("more than %d tokens: not a policy file", MaxTokens))
			}
			tokens.Add(tk)
			switch tk.Type {
			case token.AliasType, token.AnchorType:
				named = tk
				continue
			case token.InvalidType:
				return tokens, nil
			}
			if depth.see(tk) > MaxDepth {
				return nil, tokenError(path, tk, fmt.Sprintf("nested more than %d levels deep: not a policy file", MaxDepth))
			}
		}
		if named != nil {
			return nil, namedError(path, named, "")
		}
		if err == io.EOF {
			return tokens, nil
		}
	}
}

func namedError(path string, indicator *token.Token, name string) error {
	if indicator.Type == token.AliasType {
		// The name is left out: the scanner ends it at a slash, and an
		// alias here is most often an unquoted glob (**/*.json).
		return tokenError(path, indicator, "* starts an alias, which a policy file takes none of (quote a glob that starts with *)")
	}
	return tokenError(path, indicator, fmt.Sprintf("an anchor (&%s): a policy file takes none", name))
}

func tokenError(path string, tk *token.Token, msg string) error {
	return fmt.Errorf("%s:%d:%d: %s", path, tk.Position.Line, tk.Position.Column, msg)
}

// policyDepth follows how deep the tokens seen so far nest. A flow
// collection ([ or {) opens a level and its end closes it; a block
// collection opens a level at each column where a sequence entry (-), an
// explicit key (?) or a mapping's key stands further right than the
// innermost open one, and a token at or left of a level's column closes
// it. A block sequence written at its mapping's column (key:\n- a) counts
// once for two, so the count is at least half the true depth, which is
// all a bound needs.
type policyDepth struct {
	flow int
	// block holds the columns of the open block collections, innermost
	// last.
	block []int
	// prev is the last token before the current one, but for comments.
	prev *token.Token
}

// see takes the next token and returns the depth it stands at.
func (d *policyDepth) see(tk *token.Token) int {
	defer func() {
		if tk.Type != token.CommentType {
			d.prev = tk
		}
	}()
	switch tk.Type {
	case token.SequenceStartType, token.MappingStartType:
		d.flow++
	case token.SequenceEndType, token.MappingEndType:
		d.flow = max(d.flow-1, 0)
	case token.SequenceEntryType, token.MappingKeyType:
		if d.flow == 0 {
			d.openBlock(tk.Position.Column)
		}
	case token.MappingValueType:
		if d.flow == 0 {
			column := tk.Position.Column
			if d.prev != nil && d.prev.Position.Line == tk.Position.Line {
				column = d.prev.Position.Column // the key's
			}
			d.openBlock(column)
		}
	}
	return d.flow + len(d.block)
}

// openBlock notes a block collection's indicator at column: it closes the
// collections to its right and opens one unless it is an entry of the
// innermost.
func (d *policyDepth) openBlock(column int) {
	for len(d.block) > 0 && d.block[len(d.block)-1] > column {
		d.block = d.block[:len(d.block)-1]
	}
	if len(d.block) == 0 || d.block[len(d.block)-1] < column {
		d.block = append(d.block, column)
	}
}
