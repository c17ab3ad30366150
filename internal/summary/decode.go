package summary

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DecodeError is a summary document that could not be decoded: where,
// and what is wrong there.
type DecodeError struct {
	Line, Column int    // 1-based; the column counts characters
	Pointer      string // JSON Pointer of the value at fault; "" for the document
	Msg          string
	// Newer tells that the fault is a member unknown here in a document
	// that is otherwise a summary: one written by a newer cardscan, most
	// likely, rather than a file given by mistake.
	Newer bool

	unknownMember bool
}

// Error is "LINE:COLUMN: " and the Detail.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Detail())
}

// Detail is "MSG, at POINTER", the pointer left out when it is the whole
// document: the error without its place, for a caller that writes the
// place after a file name.
func (e *DecodeError) Detail() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Msg + ", at " + e.Pointer
}

// LocateError turns the jsonv2 decoder's error on b into a *DecodeError,
// which says where in b the fault is; another error is returned as it is.
// The report reads the lines of its diff with it, so that their faults
// are named as a summary's are.
func LocateError(b []byte, err error) error {
	var syn *jsontext.SyntacticError
	var sem *jsonv2.SemanticError
	switch {
	case errors.As(err, &syn):
		return newDecodeError(b, syn.ByteOffset, string(syn.JSONPointer), syn.Err.Error())
	case errors.As(err, &sem):
		msg := fmt.Sprintf("a JSON %s where %s belongs", kindName(sem.JSONKind), goKind(sem.GoType))
		switch {
		case errors.Is(sem.Err, jsonv2.ErrUnknownName):
			de := newDecodeError(b, sem.ByteOffset, string(sem.JSONPointer), fmt.Sprintf("unknown member %q", sem.JSONPointer.LastToken()))
			de.unknownMember = true
			return de
		case sem.Err != nil:
			msg += ": " + sem.Err.Error()
		}
		return newDecodeError(b, sem.ByteOffset, string(sem.JSONPointer), msg)
	}
	return err
}

// fromNewer says b is a summary but for members unknown here: it holds
// every member a summary always has, and read without the unknown ones
// it is a summary whose counts agree.
func fromNewer(b []byte) bool {
	var top map[string]jsontext.Value
	if jsonv2.Unmarshal(b, &top) != nil {
		return false
	}
	for _, name := range alwaysWritten() {
		if _, ok := top[name]; !ok {
			return false
		}
	}
	var s Summary
	return jsonv2.Unmarshal(b, &s) == nil && s.check() == nil
}

// alwaysWritten are the names of the members every summary holds: those
// of Summary's fields that are not left out when empty.
var alwaysWritten = sync.OnceValue(func() []string {
	var names []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for f := range t.Fields() {
			tag := f.Tag.Get("json")
			if f.Anonymous && tag == "" {
				walk(f.Type)
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" || name == "-" || strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,") {
				continue
			}
			names = append(names, name)
		}
	}
	walk(reflect.TypeFor[Summary]())
	return names
})

func newDecodeError(b []byte, offset int64, pointer, msg string) *DecodeError {
	offset = min(max(offset, 0), int64(len(b)))
	before := b[:offset]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return &DecodeError{
		Line:    bytes.Count(before, []byte("\n")) + 1,
		Column:  utf8.RuneCount(before[lineStart:]) + 1,
		Pointer: pointer,
		Msg:     msg,
	}
}

// kindName names a JSON value's kind as the JSON grammar does.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "value"
}

// goKind names what a Go type reads from JSON.
func goKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return goKind(t.Elem())
	}
	return "a " + t.String()
}
