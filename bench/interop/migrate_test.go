package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2apb"
	"github.com/a2aproject/a2a-go/a2apb/pbconv"
	"google.golang.org/protobuf/encoding/protojson"
)

// The main module's root and its generated sample corpus (every
// release of A2A, valid and defective cards), from this directory.
const (
	mainModule = "../.."
	sampleDump = mainModule + "/corpus/sample.ndjson.zst"
)

// cardscanBinary builds cmd/cardscan from the main module: this module
// may not import its internal packages, so it drives the command.
func cardscanBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cardscan")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cardscan")
	cmd.Dir = mainModule
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cardscan: %v\n%s", err, out)
	}
	return bin
}

// migrated is one card cardscan migrate changed.
type migrated struct {
	line     int
	from, to string
	card     []byte
}

// migrateDump runs cardscan migrate over the sample dump with args and
// returns the cards it migrated from a card valid under its own release
// to one valid under the target.
func migrateDump(t *testing.T, bin string, args ...string) []migrated {
	t.Helper()
	dir := t.TempDir()
	cards, report := filepath.Join(dir, "cards.ndjson"), filepath.Join(dir, "report.ndjson")
	cmd := exec.Command(bin, append(append([]string{"migrate", "--drop-signatures", "-o", cards, "--report", report}, args...), sampleDump)...)
	out, err := cmd.CombinedOutput()
	// Exit status 1 is expected: the dump holds A2A 0.1 cards and
	// cards of no release, which migrate refuses as they are.
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("cardscan migrate %v: %v\n%s", args, err, out)
	}
	lines := readLines(t, cards)
	var got []migrated
	refused := map[string]int{}
	for _, rec := range readLines(t, report) {
		var r struct {
			Line             int
			From, To, Status string
			ValidBefore      bool  `json:"valid_before"`
			ValidAfter       bool  `json:"valid_after"`
			TargetErrors     []any `json:"target_errors"`
			Changes          []struct{ Rule string }
		}
		if err := json.Unmarshal(rec, &r); err != nil {
			t.Fatalf("a report record is not JSON: %v\n%s", err, rec)
		}
		if r.Status == "failed" {
			t.Errorf("line %d: %s -> %s fails the target: %v", r.Line, r.From, r.To, r.TargetErrors)
		}
		// A pair migrate does not move (0.1, 0.2 to 0.3) is
		// migrate.unsupported; any other refusal names its own rule.
		if r.Status == "refused" && r.ValidBefore && len(r.Changes) > 0 && r.Changes[0].Rule != "migrate.unsupported" {
			refused[r.From+" -> "+r.To+": "+r.Changes[0].Rule]++
		}
		if r.Status != "migrated" || !r.ValidBefore {
			continue
		}
		if !r.ValidAfter {
			t.Errorf("line %d: %s -> %s: a valid card migrated to an invalid one", r.Line, r.From, r.To)
		}
		got = append(got, migrated{line: r.Line, from: r.From, to: r.To, card: lines[r.Line-1]})
	}
	if len(refused) > 0 {
		t.Logf("cardscan migrate %v refused valid cards, each saying why in its record: %v", args, refused)
	}
	return got
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// loadA2AGo loads a card as a2a-go v0.3.3 does: its card resolver
// (a2aclient/agentcard) decodes the body with encoding/json into
// a2a.AgentCard, and its gRPC server converts that with pbconv. The SDK
// has no Validate function; what it must not do is fail, or lose a
// member the card gives a 0.3 reader, which the members it sees are
// checked against the card's own JSON for.
func loadA2AGo(card []byte) error {
	var c a2a.AgentCard
	if err := json.Unmarshal(card, &c); err != nil {
		return err
	}
	var m struct {
		URL                  string
		PreferredTransport   string
		ProtocolVersion      string
		AdditionalInterfaces []json.RawMessage
		SecuritySchemes      map[string]json.RawMessage
		Security             []json.RawMessage
		Skills               []json.RawMessage
	}
	if err := json.Unmarshal(card, &m); err != nil {
		return err
	}
	switch {
	case c.URL == "" || c.URL != m.URL:
		return errors.New("a2a-go sees no url: the card gives a 0.3 client no endpoint")
	case c.ProtocolVersion != m.ProtocolVersion:
		// A 0.2 card may name no protocolVersion, nor does its hybrid.
		return errors.New("a2a-go reads another protocolVersion")
	case string(c.PreferredTransport) != m.PreferredTransport:
		return errors.New("a2a-go reads another preferredTransport")
	case len(c.AdditionalInterfaces) != len(m.AdditionalInterfaces), len(c.SecuritySchemes) != len(m.SecuritySchemes),
		len(c.Security) != len(m.Security), len(c.Skills) != len(m.Skills):
		return errors.New("a2a-go sees another number of interfaces, schemes, requirements or skills")
	}
	pb, err := pbconv.ToProtoAgentCard(&c)
	if err != nil {
		return err
	}
	if len(pb.GetSecuritySchemes()) != len(c.SecuritySchemes) {
		return errors.New("a2a-go's proto conversion drops a security scheme")
	}
	_, err = pbconv.FromProtoAgentCard(pb)
	return err
}

// TestMigratedCardsLoadInA2AGo: the cards cardscan migrate writes are
// read by the Go SDK. a2a-go v0.3.3, the only release the module proxy
// serves, speaks A2A 0.3, so every valid 1.0 card of the sample corpus
// migrated to 0.3 must load, and so must every 0.2 and 0.3 card
// migrated to 1.0 with --keep-legacy (the hybrid keeps the 0.3 members).
// A plain 1.0 card cannot load, and the test holds the SDK to that: its
// JSON decoder rejects 1.0's wrapped security schemes ("unknown security
// scheme type"), and a card without schemes decodes to one with no url
// or protocolVersion, since 1.0 moved them into supportedInterfaces,
// which a2a-go v0.3.3 has no field for; its 0.3 protobuf reader rejects
// the unknown member outright.
func TestMigratedCardsLoadInA2AGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	bin := cardscanBinary(t)
	check := func(name string, cards []migrated, wantFrom ...string) {
		t.Run(name, func(t *testing.T) {
			counts := map[string]int{}
			for _, c := range cards {
				if err := loadA2AGo(c.card); err != nil {
					t.Errorf("sample line %d (%s -> %s): a2a-go v0.3.3 cannot load the migrated card: %v\n%s", c.line, c.from, c.to, err, c.card)
				}
				counts[c.from+" -> "+c.to]++
			}
			for _, from := range wantFrom {
				if counts[from] == 0 {
					t.Errorf("no valid %s card of the sample corpus migrated", from)
				}
			}
			t.Logf("a2a-go v0.3.3 loads every migrated card: %v", counts)
		})
	}
	check("1.0 to 0.3", migrateDump(t, bin, "--to", "a2a/0.3"), "a2a/1.0 -> a2a/0.3")
	check("to 1.0 --keep-legacy", migrateDump(t, bin, "--to", "a2a/1.0", "--keep-legacy"),
		"a2a/0.2 -> a2a/1.0", "a2a/0.3 -> a2a/1.0")

	t.Run("plain 1.0", func(t *testing.T) {
		cards := migrateDump(t, bin, "--to", "a2a/1.0")
		decodeErrors, noEndpoint := 0, 0
		for _, c := range cards {
			var card a2a.AgentCard
			err := json.Unmarshal(c.card, &card)
			switch {
			case err != nil && strings.Contains(err.Error(), "unknown security scheme type"):
				decodeErrors++
			case err == nil && card.URL == "" && card.ProtocolVersion == "":
				noEndpoint++
			default:
				t.Errorf("sample line %d: a2a-go v0.3.3 reads a plain 1.0 card (err %v, url %q): it has learnt 1.0, so load 1.0 cards in TestMigratedCardsLoadInA2AGo", c.line, err, card.URL)
			}
			var pb a2apb.AgentCard
			if err := protojson.Unmarshal(c.card, &pb); err == nil || !strings.Contains(err.Error(), "supportedInterfaces") {
				t.Errorf("sample line %d: a2a-go's 0.3 protobuf AgentCard reads a 1.0 card (err %v)", c.line, err)
			}
		}
		if len(cards) == 0 {
			t.Fatal("no valid card of the sample corpus migrated to 1.0")
		}
		t.Logf("of %d cards migrated to plain 1.0, a2a-go v0.3.3 rejects %d (wrapped security schemes) and decodes %d without url or protocolVersion", len(cards), decodeErrors, noEndpoint)
	})
}
