package agreement

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// card is one test card: name is its file name in the run's directory,
// text its bytes as a file holds them.
type card struct {
	name string
	text []byte
}

// root is the module's root, from this package's directory.
const root = "../.."

// goldenCards are the cards of fastvalidate's golden tables.
func goldenCards(t testing.TB) []card {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "fastvalidate/testdata/golden/*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cards: %v", err)
	}
	var out []card
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, card{"golden-" + filepath.Base(f), b})
	}
	return out
}

// contentCards are the cards of fastvalidate/testdata/content/*.tsv: the
// last tab-separated field of each line that is not a comment.
func contentCards(t *testing.T) []card {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "fastvalidate/testdata/content/*.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no content tables: %v", err)
	}
	var out []card
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(filepath.Base(f), ".tsv")
		for i, line := range strings.Split(string(b), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			text := line[strings.LastIndexByte(line, '\t')+1:]
			out = append(out, card{fmt.Sprintf("content-%s-%d.json", base, i+1), []byte(text)})
		}
	}
	return out
}

// sampleCards are the cards of the shipped sample corpus, one a line; every
// step-th of them, so that the test stays quick (0 or 1: all).
func sampleCards(t *testing.T, step int) []card {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "corpus/sample.ndjson.zst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	var out []card
	for n := 1; sc.Scan(); n++ {
		if step > 1 && n%step != 1 {
			continue
		}
		out = append(out, card{fmt.Sprintf("sample-%04d.json", n), bytes.Clone(sc.Bytes())})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// realCards are the real-world cards beside the checkout, read in place;
// none, said so, when they are absent.
func realCards(t *testing.T) []card {
	t.Helper()
	dir := filepath.Join(root, "../shared/corpus/real")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Logf("no real cards in %s: those cases are skipped", dir)
		return nil
	}
	sort.Strings(files)
	var out []card
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, card{"real-" + filepath.Base(f), b})
	}
	return out
}

// badCard is an AgentCard with two errors, a bad version and a bad
// capability id, that the hostile shapes below are written around.
const badCard = `{
  "agent_id": "01J0T5Y7ZK3M8Q2R4S6V9W1X3Y",
  "name": "NAME",
  "version": "2.4",
  "capabilities": [
	{"id": "Ledger Summarise", "description": "Summarises a month of ledger entries."}
  ],
  "endpoint": {"protocol": "https", "url": "https://ledger.example.org/agent"}
}
`

// a2aSigned is an A2A 1.0 card whose signatures fail in shape: one entry
// lacks its signature, one is no object.
const a2aSigned = `{
  "name": "Invoice agent ✓",
  "description": "Reads invoices 😀 and files them.",
  "version": "1.0.0",
  "supportedInterfaces": [{"url": "https://invoice.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "file", "name": "File", "description": "Files an invoice.", "tags": ["invoice"]}],
  "signatures": [
    {"protected": "eyJhbGciOiJFUzI1NiJ9"},
    "x"
  ]
}
`

// hostileCards are shapes that have broken positions before: pretty
// printing, text beyond ASCII and astral characters before the finding,
// CRLF and lone CR line ends, a byte order mark, tabs, escaped and
// duplicate keys, hidden characters, invalid UTF-8, the embedded-string
// form and signatures.
func hostileCards() []card {
	crlf := strings.ReplaceAll(badCard, "\n", "\r\n")
	return []card{
		{"hostile-pretty.json", []byte(badCard)},
		{"hostile-astral.json", []byte(strings.Replace(badCard, "NAME", "Zusammenfässer 😀𝔸 ✓", 1))},
		{"hostile-astral-line.json", []byte(`{"agent_id": "01J0T5Y7ZK3M8Q2R4S6V9W1X3Y", "name": "😀😀𝔸 é", "version": "2.4", "capabilities": [{"id": "ok", "description": "😀 x"}], "endpoint": {"protocol": "https", "url": "https://a.example/😀"}}`)},
		{"hostile-crlf.json", []byte(crlf)},
		{"hostile-lone-cr.json", []byte(strings.ReplaceAll(badCard, "\n", "\r"))},
		{"hostile-bom.json", append([]byte("\ufeff"), badCard...)},
		{"hostile-leading-space.json", []byte("\n\n \t" + badCard)},
		{"hostile-tabs.json", []byte(strings.ReplaceAll(badCard, "  ", "\t"))},
		{"hostile-escaped-key.json", []byte(strings.Replace(badCard, `"version"`, `"\u0076ersion"`, 1))},
		{"hostile-duplicate.json", []byte(strings.Replace(badCard, `"name": "NAME",`, `"name": "NAME", "name": "😀 again",`, 1))},
		{"hostile-duplicate-escaped.json", []byte(strings.Replace(crlf, `"name": "NAME",`, "\"name\": \"é😀\",\r\n  \"n\\u0061me\": \"x\",", 1))},
		{"hostile-hidden.json", []byte(strings.Replace(badCard, "NAME", "Sum\u202emariser\u200b \\u202e \\u001b[31m", 1))},
		{"hostile-invalid-utf8.json", []byte(strings.Replace(badCard, "NAME", "caf\xe9 😀", 1))},
		{"hostile-lone-surrogate.json", []byte(strings.Replace(badCard, "NAME", `😀 \ud800`, 1))},
		{"hostile-embedded.json", []byte(jsonString(strings.Replace(badCard, "NAME", "😀 é", 1)))},
		{"hostile-embedded-duplicate.json", []byte(jsonString(`{"name": "é😀", "name": "x"}`))},
		{"hostile-signatures.json", []byte(a2aSigned)},
		{"hostile-signatures-crlf.json", []byte(strings.ReplaceAll(a2aSigned, "\n", "\r\n"))},
		{"hostile-syntax.json", []byte("{\n  \"name\": \"😀\",\n  \"version\": 2.4.1\n}\n")},
		{"hostile-truncated.json", []byte("{\n  \"name\": \"😀 é")},
		{"hostile-truncated-utf8.json", []byte("{\n  \"name\": \"caf\xe9")},
		{"hostile-unterminated-utf8.json", []byte("\"0\x91")},
		{"hostile-not-object.json", []byte("[1, 2]\n")},
		{"hostile-empty-object.json", []byte("{}")},
	}
}

// jsonString writes s as a JSON string, escaping only what JSON requires,
// so that its non-ASCII text stays as it is.
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
