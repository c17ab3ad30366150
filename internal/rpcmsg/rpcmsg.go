// Package rpcmsg says when a JSON-RPC message is one that readers may take
// differently, for the servers that read them (mcp, lsp): encoding/json
// keeps the last of two members of one name where a proxy may keep the
// first, and reads an escaped lone surrogate as U+FFFD, so that an answer
// would go to an id the client never sent.
package rpcmsg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Ambiguous says why msg, one JSON object (valid JSON), is ambiguous, or
// returns "": a member of the envelope given twice, an id that is a
// string escaping a lone surrogate, or a null id, which JSON-RPC 2.0
// allows in a request but its readers take for a notification's (no id)
// as often, running the call and dropping its answer; MCP and LSP ids are
// strings or integers.
func Ambiguous(msg []byte) string {
	name, twice, id := envelope(msg)
	switch {
	case twice:
		return fmt.Sprintf("member %q given twice", name)
	case string(id) == "null":
		return "id must not be null: a request has a string or an integer id, a notification none"
	case len(id) > 0 && id[0] == '"' && LoneSurrogate(id):
		return "id must be valid Unicode: it holds an escaped lone surrogate (RFC 7493)"
	}
	return ""
}

// envelope walks the members of the object in msg: the first name given a
// second time, if any, and the id member's value.
func envelope(msg []byte) (twice string, given bool, id json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false, nil
	}
	seen := make(map[string]bool, 4)
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return "", false, nil
		}
		name, _ := key.(string)
		if seen[name] {
			return name, true, nil
		}
		seen[name] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return "", false, nil
		}
		if name == "id" {
			id = value
		}
	}
	return "", false, id
}

// LoneSurrogate says a JSON string (valid, with its quotes) escapes half
// of a surrogate pair without the other half.
func LoneSurrogate(str []byte) bool {
	unit := func(i int) (rune, bool) { // the \uXXXX at i, if any
		if i+6 > len(str) || str[i] != '\\' || str[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(str[i+2:i+6]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(str); i++ {
		if str[i] != '\\' {
			continue
		}
		r, ok := unit(i)
		if !ok {
			i++ // a two-byte escape such as \\ or \"
			continue
		}
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return true
		case r >= 0xd800 && r <= 0xdbff:
			lo, ok := unit(i + 6)
			if !ok || lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 6
		}
		i += 5
	}
	return false
}
