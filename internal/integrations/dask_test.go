package integrations

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDaskURLListAsFetch: contrib/dask splits a URL list into the URLs
// cardscan fetch --urls reads from it, no more and no fewer: lines end at
// \n alone (a lone \r is within a line), a byte order mark opens the file,
// blank lines and # comments are skipped, and a line longer than 64 KiB
// is no URL, reported by its line and never held whole. Each list is
// given to cardscan fetch itself, whose records name the URLs it read.
func TestDaskURLListAsFetch(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	contrib, err := filepath.Abs(filepath.Join(root, "contrib", "dask"))
	if err != nil {
		t.Fatal(err)
	}
	bin := cardscanBinary(t)
	// Port 9 of loopback: fetch refuses the address at once, and still
	// writes the URL's record.
	const u = "http://127.0.0.1:9/"
	long := u + strings.Repeat("a", 70000)
	for _, tc := range []struct {
		name, list string
		tooLong    []string // lines reported as no URL
	}{
		{"a lone CR within a line", u + "a\r" + u + "b\n" + u + "c\r\n", nil},
		{"blank lines, comments and a byte order mark", "\ufeff" + u + "a\n\n  # " + u + "x\n \t\n" + u + "b", nil},
		{"a line longer than 64 KiB", u + "a\n" + long + "\n" + u + "b\n" + long, []string{":2: ", ":4: "}},
		{"NUL and bytes that are not UTF-8", u + "a\x00b\n" + u + "\xff\xfe\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := filepath.Join(t.TempDir(), "urls.txt")
			if err := os.WriteFile(list, []byte(tc.list), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "fetch", "--urls", list, "--format", "cards", "--fail-on", "never").Output()
			var ee *exec.ExitError
			if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
				t.Fatalf("cardscan fetch: %v", err)
			}
			var want []string
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var rec struct{ URL string }
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("cardscan fetch's record %q: %v", sc.Bytes(), err)
				}
				want = append(want, rec.URL)
			}

			// The URLs as JSON strings of their bytes: surrogate escapes
			// back to the bytes they stand for, as the shard file holds.
			script := `import json, sys
sys.path.insert(0, sys.argv[1])
import cardscan_dask
urls = [u for s in cardscan_dask.url_shards(sys.argv[2], 2) for u in s]
print(json.dumps([u.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for u in urls]))
`
			cmd := exec.Command(python, "-c", script, contrib, list)
			// No __pycache__ left in the source tree.
			cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			py, err := cmd.Output()
			if err != nil {
				t.Fatalf("url_shards: %v\n%s", err, &stderr)
			}
			var got []string
			if err := json.Unmarshal(py, &got); err != nil {
				t.Fatalf("url_shards printed %q: %v", py, err)
			}
			for i := range want {
				want[i] = strings.ToValidUTF8(want[i], "\ufffd")
			}
			if !slices.Equal(got, want) {
				t.Errorf("url_shards read %q\ncardscan fetch read %q", got, want)
			}
			for _, line := range tc.tooLong {
				if !strings.Contains(stderr.String(), list+line+"longer than 65536 bytes: not a URL; skipped") {
					t.Errorf("line %s not reported as too long:\n%s", line, &stderr)
				}
			}
		})
	}
}

// TestDaskOutIsAFile: an --out that is a file is a usage error naming it,
// not a Python traceback, and the file is left as it was.
func TestDaskOutIsAFile(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	dir := t.TempDir()
	list := filepath.Join(dir, "urls.txt")
	out := filepath.Join(dir, "results")
	writeFile(t, list, "http://127.0.0.1:9/\n")
	writeFile(t, out, "kept\n")
	cmd := exec.Command(python, filepath.Join(root, "contrib", "dask", "cardscan_dask.py"), "--urls", list, "--out", out)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	msg, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(msg), "--out "+out+": ") || strings.Contains(string(msg), "Traceback") {
		t.Errorf("exit %v, want 2 naming --out:\n%s", err, msg)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "kept\n" {
		t.Errorf("--out's file holds %q, %v", b, err)
	}
}
