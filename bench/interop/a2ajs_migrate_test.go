package interop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// a2ajsDir holds @a2a-js/sdk, pinned by its lockfile (make node-deps
// installs it for cardsig's signature test), and load-cards.mjs.
const a2ajsDir = mainModule + "/cardsig/testdata/a2ajs"

// jsCard is what @a2a-js/sdk read of a card (load-cards.mjs).
type jsCard struct {
	OK                bool
	Error             string
	Legacy            bool
	Interfaces        []jsInterface
	Schemes           map[string]string // name: the 1.0 wrapper the SDK holds it as
	Requirements      [][]string        // each requirement's scheme names, sorted
	Skills            int
	ExtendedAgentCard bool
}

type jsInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// loadA2AJS reads cards with @a2a-js/sdk, one answer per card; it skips
// the test, saying why, without node or the SDK.
func loadA2AJS(t *testing.T, cards []migrated) []jsCard {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: @a2a-js/sdk cannot load the migrated cards")
	}
	if _, err := os.Stat(filepath.Join(a2ajsDir, "node_modules", "@a2a-js", "sdk")); err != nil {
		t.Skip("@a2a-js/sdk is not installed: run npm ci in cardsig/testdata/a2ajs (make node-deps does)")
	}
	var in bytes.Buffer
	for _, c := range cards {
		in.Write(c.card)
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "load-cards.mjs")
	cmd.Dir = a2ajsDir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node load-cards.mjs: %v\n%s", err, &stderr)
	}
	var got []jsCard
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c jsCard
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("load-cards.mjs wrote %q: %v", sc.Bytes(), err)
		}
		got = append(got, c)
	}
	if len(got) != len(cards) {
		t.Fatalf("load-cards.mjs answered %d cards of %d", len(got), len(cards))
	}
	return got
}

// cardView is what a card's JSON says, in either release's shape.
type cardView struct {
	URL                  string
	PreferredTransport   string
	ProtocolVersion      string
	AdditionalInterfaces []struct{ URL, Transport string }
	SupportedInterfaces  []jsInterface
	SecuritySchemes      map[string]map[string]json.RawMessage
	Security             []map[string]json.RawMessage
	SecurityRequirements []struct {
		Schemes map[string]json.RawMessage
	}
	Skills       []json.RawMessage
	Capabilities struct {
		ExtendedAgentCard bool
	}
	SupportsAuthenticatedExtendedCard bool
}

// wrappers are the 1.0 members holding each 0.x scheme type.
var wrappers = map[string]string{
	"apiKey": "apiKeySecurityScheme", "http": "httpAuthSecurityScheme", "oauth2": "oauth2SecurityScheme",
	"openIdConnect": "openIdConnectSecurityScheme", "mutualTLS": "mtlsSecurityScheme",
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// want says what @a2a-js/sdk must read of a card: a 1.0 card (a hybrid
// too: the SDK reads supportedInterfaces when a card has them) through
// its 1.0 parser, a 0.3 card through its 0.3 translation, which makes
// url and preferredTransport (JSONRPC when absent) the first interface.
func want(t *testing.T, card []byte) jsCard {
	t.Helper()
	var v cardView
	if err := json.Unmarshal(card, &v); err != nil {
		t.Fatal(err)
	}
	w := jsCard{OK: true, Schemes: map[string]string{}, Requirements: [][]string{}, Skills: len(v.Skills)}
	if len(v.SupportedInterfaces) > 0 {
		w.Interfaces = v.SupportedInterfaces
		for name, s := range v.SecuritySchemes {
			for _, wrapper := range wrappers {
				if s[wrapper] != nil {
					w.Schemes[name] = wrapper
				}
			}
		}
		for _, r := range v.SecurityRequirements {
			w.Requirements = append(w.Requirements, sortedKeys(r.Schemes))
		}
		w.ExtendedAgentCard = v.Capabilities.ExtendedAgentCard
		return w
	}
	w.Legacy = true
	binding := v.PreferredTransport
	if binding == "" {
		binding = "JSONRPC"
	}
	// The SDK gives the first interface the card's protocolVersion and
	// the others its own "0.3".
	version := v.ProtocolVersion
	if version == "" {
		version = "0.3"
	}
	w.Interfaces = []jsInterface{{URL: v.URL, ProtocolBinding: binding, ProtocolVersion: version}}
	for _, a := range v.AdditionalInterfaces {
		w.Interfaces = append(w.Interfaces, jsInterface{URL: a.URL, ProtocolBinding: a.Transport, ProtocolVersion: "0.3"})
	}
	for name, s := range v.SecuritySchemes {
		var typ string
		_ = json.Unmarshal(s["type"], &typ)
		w.Schemes[name] = wrappers[typ]
	}
	for _, r := range v.Security {
		w.Requirements = append(w.Requirements, sortedKeys(r))
	}
	w.ExtendedAgentCard = v.SupportsAuthenticatedExtendedCard
	return w
}

// TestMigratedCardsLoadInA2AJS: @a2a-js/sdk reads the cards cardscan
// migrate writes as the cards say, in every shape the SDK reads: 1.0
// cards (0.2 and 0.3 cards migrated, plain and --keep-legacy) through
// its 1.0 parser, and 0.3 cards (1.0 cards migrated back) through its
// 0.3 translation. The SDK checks little itself (its parser fills a
// default for what is missing), so the test compares what it read with
// what the card says: the interfaces, each scheme's kind, the
// requirements, the skills, the extended card.
func TestMigratedCardsLoadInA2AJS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cardscan")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: @a2a-js/sdk cannot load the migrated cards")
	}
	bin := cardscanBinary(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"to 1.0", []string{"--to", "a2a/1.0"}},
		{"to 1.0 --keep-legacy", []string{"--to", "a2a/1.0", "--keep-legacy"}},
		{"to 0.3", []string{"--to", "a2a/0.3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cards := migrateDump(t, bin, tc.args...)
			if len(cards) == 0 {
				t.Fatal("no valid card of the sample corpus migrated")
			}
			got := loadA2AJS(t, cards)
			counts := map[string]int{}
			for i, c := range cards {
				w := want(t, c.card)
				if !reflect.DeepEqual(got[i], w) {
					t.Errorf("sample line %d (%s -> %s): @a2a-js/sdk read\n%+v\nwant\n%+v\n%s", c.line, c.from, c.to, got[i], w, c.card)
					continue
				}
				counts[c.from+" -> "+c.to]++
			}
			t.Logf("@a2a-js/sdk reads every migrated card as it says: %v", counts)
		})
	}
}
