package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
)

// TestMain lets the test binary stand in for cardscan lsp when Neovim
// starts it: the server is the package's own Run.
func TestMain(m *testing.M) {
	if os.Getenv("CARDSCAN_LSP_TEST_SERVER") == "1" {
		os.Exit(cmderr.Exit(Run(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, nil), console.New(os.Stderr)))
	}
	os.Exit(m.Run())
}

func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim not installed (Debian package neovim; make debian-packages installs it): the real-client test is skipped")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Neovim runs the server with an argv of its own: a wrapper script
	// turns "SERVER lsp FLAGS" into the test binary with its marker.
	dir := t.TempDir()
	server := filepath.Join(dir, "cardscan")
	script := fmt.Sprintf("#!/bin/sh\nCARDSCAN_LSP_TEST_SERVER=1 exec %q \"$@\"\n", exe)
	if err := os.WriteFile(server, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	lua, err := filepath.Abs("testdata/nvim_client.lua")
	if err != nil {
		t.Fatal(err)
	}
	// A case with no code applies an action on the whole card; release,
	// when set, is the release the CLI must then judge the buffer valid as.
	for _, tc := range []struct{ file, profile, code, action, release string }{
		{"a2a-astral.json", "auto", "a2a.field-name", "Rename to supportedInterfaces", ""},
		{"agentcard-astral.json", "auto", "field.type", "Write 0.5 as a number", ""},
		{"a2a-0.3.json", "auto", "", "Migrate this card to A2A 1.0", "a2a/1.0"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text := readCard(t, tc.file)
			card := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(card, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.json")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+lua)
			cmd.Env = append(os.Environ(), "SERVER="+server, "CARD="+card, "CODE="+tc.code, "ACTION="+tc.action,
				"OUT="+out, "PROFILE="+tc.profile, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("nvim: %v\n%s", err, b)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("nvim wrote no result: %v", err)
			}
			var res struct {
				Error         string
				First, After  []Diagnostic
				Applied, Text string
			}
			if err := json.Unmarshal(raw, &res); err != nil || res.Error != "" {
				t.Fatalf("nvim: %v %s", err, res.Error)
			}
			want := cliLocations(t, tc.profile, text)
			if len(res.First) != len(want) {
				t.Fatalf("nvim received %d diagnostics, the CLI reports %d", len(res.First), len(want))
			}
			var target Diagnostic
			for _, d := range res.First {
				key := d.Code + " " + d.Data.Path
				if got := fmt.Sprintf("%d:%d", d.Range.Start.Line, d.Range.Start.Character); got != want[key] {
					t.Errorf("nvim has %s at %s, the CLI at %s", key, got, want[key])
				}
				if d.Code == tc.code {
					target = d
				}
			}
			for _, d := range res.After {
				if tc.code != "" && d.Code == target.Code && d.Data.Path == target.Data.Path {
					t.Errorf("after %q nvim still shows %s at %s:\n%s", res.Applied, d.Code, d.Data.Path, res.Text)
				}
			}
			if tc.release != "" {
				judgedByCLI(t, res.Text, tc.release)
				if len(res.After) != 0 {
					t.Errorf("after %q nvim shows %+v", res.Applied, res.After)
				}
			}
		})
	}
}

// judgedByCLI checks that the CLI, judging text as a file under the a2a
// profile and under release, reports no finding and recognises release.
func judgedByCLI(t *testing.T, text, release string) {
	t.Helper()
	if text == "" {
		t.Fatal("the buffer is empty")
	}
	for _, profile := range []string{"a2a", release} {
		v := fastvalidate.MustNew(profile)
		var out bytes.Buffer
		if fs := jsonlFindings(t, v, []byte(text), &out); len(fs) != 0 {
			t.Errorf("the CLI's --profile %s finds %+v in the buffer:\n%s", profile, fs, text)
		}
		var rec struct{ Profile string }
		if err := json.Unmarshal(out.Bytes(), &rec); err != nil || rec.Profile != release {
			t.Errorf("the CLI's --profile %s judges the buffer as %q (%v), want %s: %s", profile, rec.Profile, err, release, out.String())
		}
	}
}
