package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBinaryMigrateOutFileReaderGoes: migrate -o and --report opened
// their files read-write, so a FIFO held its own read end in cardscan:
// once its reader went, the run blocked for ever on a full pipe.
func TestBinaryMigrateOutFileReaderGoes(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "big.ndjson"), bigInput(t, 300))
	for _, flag := range []string{"-o", "--report"} {
		t.Run(flag, func(t *testing.T) {
			fifo := filepath.Join(dir, "fifo"+flag)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			args := []string{"migrate", "--to", "a2a/1.0", flag, fifo, input}
			if flag == "--report" {
				args = []string{"migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, "cards.ndjson"), flag, fifo, input}
			}
			cmd := exec.Command(bin, args...)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r, err := os.OpenFile(fifo, os.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(r, make([]byte, 100)); err != nil {
				t.Fatal(err)
			}
			r.Close()
			code := exitCode(t, waitExit(t, cmd, 60*time.Second))
			if code == exitOK && errOut.Len() == 0 {
				t.Errorf("exit 0 and nothing said, though the reader of %s left before the end", flag)
			}
		})
	}
}

// TestMigrateOutputsReplacedWhole: -o and --report were truncated and
// written in place, so a run that failed to write them (a full disk)
// left neither the earlier file nor a whole new one. They are written
// beside and renamed over, as every other output is: a hard link to the
// earlier file keeps its content.
func TestMigrateOutputsReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	card := writeFile(t, filepath.Join(dir, "card.json"), migrateCard(t))
	for _, flag := range []string{"-o", "--report"} {
		t.Run(flag, func(t *testing.T) {
			out := writeFile(t, filepath.Join(dir, "out"+flag), []byte("earlier"))
			keep := filepath.Join(dir, "keep"+flag)
			if err := os.Link(out, keep); err != nil {
				t.Skip(err)
			}
			args := []string{"migrate", "--to", "a2a/1.0", "-o", filepath.Join(dir, "cards"+flag), "--report", out, card}
			if flag == "-o" {
				args = []string{"migrate", "--to", "a2a/1.0", "-o", out, card}
			}
			if r := run(t, "", args...); r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if got := readFile(t, out); !strings.Contains(string(got), "a2a/1.0") && !strings.Contains(string(got), "supportedInterfaces") {
				t.Errorf("%s holds %.60q, not the new output", flag, got)
			}
			if got := readFile(t, keep); string(got) != "earlier" {
				t.Errorf("the earlier %s was rewritten in place: a link to it now holds %.60q", flag, got)
			}
		})
	}
}

// TestMigrateWriteKeepsAnEarlierBackup: --write removed a FILE.orig that
// was already there (an earlier run's backup of the true original, or
// patch's) to put its own in its place. It is left as it was, and the
// card not rewritten, unless it holds the very bytes it would keep.
func TestMigrateWriteKeepsAnEarlierBackup(t *testing.T) {
	dir := t.TempDir()
	src := migrateCard(t)
	path := writeFile(t, filepath.Join(dir, "agent.json"), src)
	backup := writeFile(t, path+".orig", []byte("the true original"))
	r := run(t, "", "migrate", "--to", "a2a/1.0", "--write", path)
	if r.code != exitIO || !strings.Contains(r.stderr, backup+" exists") {
		t.Errorf("exit %d, stderr %q; want %d naming %s", r.code, r.stderr, exitIO, backup)
	}
	if got := readFile(t, backup); string(got) != "the true original" {
		t.Errorf("%s now holds %.40q", backup, got)
	}
	if got := readFile(t, path); !bytes.Equal(got, src) {
		t.Error("the card was rewritten without its backup")
	}
	// A backup holding the card's own bytes loses nothing when replaced.
	writeFile(t, backup, src)
	if r := run(t, "", "migrate", "--to", "a2a/1.0", "--write", path); r.code != exitOK {
		t.Errorf("a backup equal to the card: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, backup); !bytes.Equal(got, src) {
		t.Errorf("%s holds %.40q, not the original", backup, got)
	}
}

// TestOutputsKeepTheirMode: an output written beside its file and
// renamed over it took mode 0644, so a --summary, report or migrate -o
// kept private (0600) became readable by everyone on the machine. The
// mode of the file replaced is kept.
func TestOutputsKeepTheirMode(t *testing.T) {
	dir := t.TempDir()
	card := writeFile(t, filepath.Join(dir, "card.json"), migrateCard(t))
	private := func(name string) string {
		p := writeFile(t, filepath.Join(dir, name), []byte("earlier"))
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sum, rep, mig := private("s.json"), private("r.html"), private("m.json")
	for _, args := range [][]string{
		{"-q", "--summary", sum, cardsFile},
		{"report", reportSummary, "-o", rep},
		{"migrate", "--to", "a2a/1.0", "-o", mig, card},
	} {
		if r := run(t, "", args...); r.code > 1 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	for _, p := range []string{sum, rep, mig} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want the 0600 it had", p, fi.Mode().Perm(), err)
		}
		if got := readFile(t, p); string(got) == "earlier" {
			t.Errorf("%s was not written", p)
		}
	}
}

// TestBinaryMigrateWriteDiskFullKeepsCard: --write on a disk that fills
// up (a file size limit, so that the backup may fit and the migrated card
// not) exits 3 naming the file and leaves it, and its directory, as they
// were: no half-written card, no temporary file.
func TestBinaryMigrateWriteDiskFullKeepsCard(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: no file size limit to fill the disk with")
	}
	bin := binary(t)
	card := migrateCard(t)
	// bash's ulimit -f counts KiB: the card padded to just under 2 KiB
	// fits as a backup, the migrated card, longer, does not; at 1 KiB
	// neither fits.
	pad := 2040 - len(card) - len(`"x-pad": "",`)
	if pad < 0 {
		t.Fatalf("the test card is %d bytes: too long to pad to 2040", len(card))
	}
	padded := bytes.Replace(card, []byte("{"), []byte(`{"x-pad": "`+strings.Repeat("p", pad)+`",`), 1)
	for _, limit := range []string{"1", "2"} {
		for _, backup := range []string{"", "--no-backup"} {
			t.Run(limit+"KiB"+backup, func(t *testing.T) {
				dir := t.TempDir()
				path := writeFile(t, filepath.Join(dir, "card.json"), padded)
				args := []string{"-c", `ulimit -f ` + limit + ` && exec "$0" "$@"`, bin, "migrate", "--to", "a2a/1.0", "--write", "--report", "/dev/null"}
				if backup != "" {
					args = append(args, backup)
				}
				cmd := exec.Command(bash, append(args, path)...)
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				err := cmd.Run()
				if code := cmd.ProcessState.ExitCode(); code != exitIO {
					t.Fatalf("exit %d (%v), want %d: %s", code, err, exitIO, errOut.Bytes())
				}
				if !strings.Contains(errOut.String(), path) {
					t.Errorf("the error does not name %s: %s", path, errOut.Bytes())
				}
				if got := readFile(t, path); !bytes.Equal(got, padded) {
					t.Errorf("the card was changed by a write that failed:\n%.200s", got)
				}
				entries, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					switch e.Name() {
					case "card.json":
					case "card.json.orig":
						if got := readFile(t, filepath.Join(dir, e.Name())); !bytes.Equal(got, padded) {
							t.Errorf("card.json.orig is not the card: %.200s", got)
						}
					default:
						t.Errorf("the failed write left %s behind", e.Name())
					}
				}
			})
		}
	}
}

// TestMigrateWriteReadOnlyDirKeepsCard: --write into a directory it may
// not create files in (the temporary file beside the card, the backup)
// exits 3 naming the file and leaves the card as it was.
func TestMigrateWriteReadOnlyDirKeepsCard(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which writes into a read-only directory: skipped")
	}
	dir := t.TempDir()
	card := migrateCard(t)
	path := writeFile(t, filepath.Join(dir, "card.json"), card)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	for _, backup := range []string{"", "--no-backup"} {
		args := []string{"migrate", "--to", "a2a/1.0", "--write", "--report", "/dev/null"}
		if backup != "" {
			args = append(args, backup)
		}
		r := run(t, "", append(args, path)...)
		if r.code != exitIO || !strings.Contains(r.stderr, path) {
			t.Errorf("%s: exit %d, want %d naming %s: %s", backup, r.code, exitIO, path, r.stderr)
		}
		if got := readFile(t, path); !bytes.Equal(got, card) {
			t.Errorf("%s: the card was changed by a write that failed:\n%.200s", backup, got)
		}
	}
}

// TestBinaryMigrateWriteDiskFullCountsNotWritten: a card --write failed
// to write is not counted as migrated in the closing line: it was not.
func TestBinaryMigrateWriteDiskFullCountsNotWritten(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed: no file size limit to fill the disk with")
	}
	bin := binary(t)
	for _, name := range []string{"card.json", "cards.ndjson"} {
		t.Run(name, func(t *testing.T) {
			card := migrateCard(t)
			if name == "cards.ndjson" {
				var c bytes.Buffer
				if err := json.Compact(&c, card); err != nil {
					t.Fatal(err)
				}
				card = append(c.Bytes(), '\n')
			}
			padded := bytes.Replace(card, []byte("{"), []byte(`{"x-pad": "`+strings.Repeat("p", 1100)+`",`), 1)
			path := writeFile(t, filepath.Join(t.TempDir(), name), padded)
			cmd := exec.Command(bash, "-c", `ulimit -f 1 && exec "$0" "$@"`, bin, "migrate", "--to", "a2a/1.0", "--write", "--no-backup", "--report", "/dev/null", path)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != exitIO {
				t.Fatalf("exit %d (%v), want %d: %s", code, err, exitIO, errOut.Bytes())
			}
			if !strings.Contains(errOut.String(), "migrate: 0 migrated, 0 unchanged, 0 refused, 0 failed the target, 1 not written") {
				t.Errorf("the closing line does not count the card as not written:\n%s", errOut.Bytes())
			}
		})
	}
}
