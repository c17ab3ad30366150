package clobber

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.json")
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink(in, soft); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	stdout, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	input := []File{{"the summary", in}}
	for _, tc := range []struct {
		name    string
		inputs  []File
		outputs []File
		stdout  any
		want    string // "" for no error
	}{
		{"same name", input, []File{{"-o", in}}, nil, "-o " + in + " is also the summary " + in},
		{"another path", input, []File{{"-o", dir + "/./in.json"}}, nil, "is also the summary"},
		{"a hard link", input, []File{{"-o", hard}}, nil, "-o " + hard + " is also"},
		{"a symbolic link", input, []File{{"-o", soft}}, nil, "-o " + soft + " is also"},
		{"a linked directory", input, []File{{"-o", filepath.Join(alias, "in.json")}}, nil, "is also"},
		{"standard output", input, []File{{"standard output", "-"}}, stdout, "standard output is also the summary " + in},
		{"two outputs, one not yet there", nil, []File{{"--a", filepath.Join(dir, "new")}, {"--b", filepath.Join(alias, "new")}}, nil, "name the same file"},
		{"an output and standard output", nil, []File{{"--summary", hard}, {"standard output", "-"}}, stdout, "--summary " + hard + " and standard output name the same file"},
		{"standard output twice", nil, []File{{"--summary", "-"}, {"standard output", "-"}}, stdout, ""},
		{"another file", input, []File{{"-o", filepath.Join(dir, "out.html")}}, stdout, ""},
		{"a buffer as standard output", input, []File{{"standard output", "-"}}, &bytes.Buffer{}, ""},
		{"a device", []File{{"the card", os.DevNull}}, []File{{"-o", os.DevNull}}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := tc.stdout.(interface{ Write([]byte) (int, error) })
			err := Check(tc.inputs, tc.outputs, nil, w)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error holding %q", err, tc.want)
			}
		})
	}
}

// Output tells which output a file a directory walk found is.
func TestOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.ndjson")
	other := filepath.Join(dir, "other.ndjson")
	for _, p := range []string{out, other} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := New([]File{{"--valid-out", out}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out)
	if f, ok := g.Output(st); !ok || f.Role != "--valid-out" {
		t.Errorf("the output itself: %v %v", f, ok)
	}
	st, _ = os.Stat(other)
	if f, ok := g.Output(st); ok {
		t.Errorf("another file taken for %v", f)
	}
	if _, ok := g.Output(nil); ok {
		t.Error("no file taken for an output")
	}
}
