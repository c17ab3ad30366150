// Package clobber keeps a command from writing over what it reads. Every
// cardscan command that writes a file or standard output checks its
// outputs against its inputs, and against each other, with this package
// before it writes anything: creating an output truncates it, and
// renaming a finished one over it replaces it, so an output that is also
// an input (by the same name, another path to it, a hard link or a
// symbolic link) or another output destroys the file.
//
// Only regular files are compared: two names for /dev/null, a terminal or
// a pipe are no harm, and a FIFO is read and written as a stream.
package clobber

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is a file a command reads or writes, as its messages name it.
type File struct {
	// Role names the file in messages: a flag ("-o", "--summary") or what
	// the operand is ("the summary", "the card"). A Role ending in "="
	// ("--format jsonl=") is joined to Path as it was typed.
	Role string
	// Path is the file's name on the command line; "-" is standard input
	// for an input, standard output for an output.
	Path string
}

func (f File) String() string {
	if f.Path == "-" {
		return f.Role
	}
	if strings.HasSuffix(f.Role, "=") {
		return f.Role + f.Path
	}
	return f.Role + " " + f.Path
}

// resolved is a File with what identifies it: its canonical path, and the
// FileInfo of a regular file (nil for one that does not exist yet).
type resolved struct {
	File
	canon   string
	info    os.FileInfo
	special bool // exists and is not a regular file: never compared
}

// Guard is a command's outputs, resolved once, to check inputs against.
// It is not safe for concurrent use.
type Guard struct {
	stdin io.Reader
	outs  []resolved
}

// New resolves a command's outputs, where stdout is what an output of
// path "-" writes to, and fails when two of them are one file. Two
// outputs both "-" are not: a command writes them to the stream in turn.
func New(outputs []File, stdin io.Reader, stdout io.Writer) (*Guard, error) {
	g := &Guard{stdin: stdin}
	for _, o := range outputs {
		r := resolve(o, stdout)
		for _, prev := range g.outs {
			if o.Path == "-" && prev.Path == "-" {
				continue
			}
			if same(r, prev) {
				return nil, fmt.Errorf("%s and %s name the same file; one would destroy the other", prev, r)
			}
		}
		g.outs = append(g.outs, r)
	}
	return g, nil
}

// Input fails when in, an input read from the command line or standard
// input, is one of the outputs: writing the output would destroy it.
func (g *Guard) Input(in File) error {
	r := resolve(in, g.stdin)
	for _, o := range g.outs {
		if same(r, o) {
			return fmt.Errorf("%s is also %s; writing it would destroy it", o, in)
		}
	}
	return nil
}

// Output tells which output a file is, given its FileInfo: for inputs a
// directory walk found rather than the command line named.
func (g *Guard) Output(info os.FileInfo) (File, bool) {
	if info == nil || !info.Mode().IsRegular() {
		return File{}, false
	}
	for _, o := range g.outs {
		if o.info != nil && os.SameFile(o.info, info) {
			return o.File, true
		}
	}
	return File{}, false
}

// Check fails, naming both files, when an output is one of the inputs or
// another output. Commands call it before they write anything.
func Check(inputs, outputs []File, stdin io.Reader, stdout io.Writer) error {
	g, err := New(outputs, stdin, stdout)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		if err := g.Input(in); err != nil {
			return err
		}
	}
	return nil
}

// resolve identifies f; std is the stream "-" names.
func resolve(f File, std any) resolved {
	r := resolved{File: f}
	var st os.FileInfo
	var err error
	if f.Path == "-" {
		file, ok := std.(*os.File)
		if !ok {
			// A stream that is not a file (a buffer, a pipe the caller
			// made) is no file on disk to destroy.
			r.special = true
			return r
		}
		st, err = file.Stat()
	} else {
		r.canon = canonical(f.Path)
		st, err = os.Stat(f.Path)
	}
	switch {
	case err != nil:
		if f.Path == "-" {
			r.special = true
		}
	case st.Mode().IsRegular():
		r.info = st
	default:
		r.special = true
	}
	return r
}

// same tells whether a and b are one regular file, or one name of a file
// that does not exist yet.
func same(a, b resolved) bool {
	if a.special || b.special {
		return false
	}
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.canon != "" && a.canon == b.canon
}

// canonical is path made absolute, with the links in its directory's path
// resolved: the same for two names of one directory entry, whether or not
// the entry exists.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, base)
}
