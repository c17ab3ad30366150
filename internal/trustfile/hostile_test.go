package trustfile

import (
	"os"
	"strings"
	"testing"
)

// A byte order mark, as Windows editors write one, starts the stream and
// is no part of the first key (YAML 1.2, 5.2); the positions after it are
// those of the file without it.
func TestReadRootByteOrderMark(t *testing.T) {
	root, err := ReadRoot("p.yaml", []byte("\ufeffprofile: a2a\n"))
	if err != nil {
		t.Fatal(err)
	}
	entries, ok := MappingEntries(root)
	if !ok || len(entries) != 1 {
		t.Fatalf("got %s, want a mapping of one key", NodeKind(root))
	}
	if key, _ := Scalar(entries[0].Key); key != "profile" {
		t.Errorf("key %q, want profile", key)
	}
	_, err = ReadRoot("p.yaml", []byte("\ufeffrules:\n  a: [b\n  c: d\n"))
	const want = "p.yaml:3:3: ',' or ']' must be specified"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// Bytes that are not UTF-8 are refused where they stand: the parser would
// read each as U+FFFD, so a glob or a path holding one would silently
// match or name nothing.
func TestReadRootNotUTF8(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"profile: caf\xe9\n", "p.yaml:1:13: not UTF-8 (byte 0xe9): a policy file is UTF-8 text"},
		{"rules:\n  a: off\ninclude: ['\xff/**']\n", "p.yaml:3:12: not UTF-8 (byte 0xff): a policy file is UTF-8 text"},
		{"# \xc3\n", "p.yaml:1:3: not UTF-8 (byte 0xc3): a policy file is UTF-8 text"},
	} {
		_, err := ReadRoot("p.yaml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: error %v, want %s", tc.src, err, tc.want)
		}
	}
}

// A merge key says what it is rather than "something else".
func TestParseMergeKey(t *testing.T) {
	root, err := ReadRoot("p.yaml", []byte("origins:\n  <<: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("p.yaml", t.TempDir(), root)
	const want = "p.yaml:2:3: origins: want an origin, got a merge key (<<), which a policy file takes none of"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// A file a policy names is read only when it is a regular file: a device
// is no key set, and is refused by name and position.
func TestParseRefusesFilesThatAreNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skip("no /dev/null here")
	}
	for _, tc := range []struct{ src, want string }{
		{"origins:\n  https://a.example:\n    keys: /dev/null\n", "p.yaml:3:11: https://a.example: keys: /dev/null: not a regular file"},
		{"x5c-roots: /dev/null\norigins:\n  '*': {x5c: true}\n", "p.yaml:1:12: x5c-roots: /dev/null: not a regular file"},
	} {
		root, err := ReadRoot("p.yaml", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse("p.yaml", t.TempDir(), root)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %s", tc.src, err, tc.want)
		}
	}
}

// A huge scalar or key is quoted in an error by its start and its size,
// not whole: a policy file of one 1 MiB value would make a 1 MiB line of
// a CI log.
func TestErrorsQuoteHugeScalarsBounded(t *testing.T) {
	huge := strings.Repeat("x", 200000)
	for _, src := range []string{
		"origins:\n  https://a.example:\n    " + huge + ": 1\n",
		"origins:\n  https://a.example:\n    jku: " + huge + "\n",
	} {
		root, err := ReadRoot("p.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse("p.yaml", t.TempDir(), root)
		if err == nil {
			t.Fatal("a huge key or value was accepted")
		}
		if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, `"xxxxxxxx`) || !strings.Contains(msg, "200000 bytes") {
			t.Errorf("error of %d bytes, want at most 300 quoting the start and the size: %.300s", len(msg), msg)
		}
	}
}
