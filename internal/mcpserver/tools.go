package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/cardscan/cardscan/rule"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/fetch"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/suggest"
)

// The tools' arguments. Their JSON Schemas are derived from these types;
// a field without omitempty is a required argument.

type validateArgs struct {
	// Card is kept as the bytes the client sent, not decoded into Go
	// values: decoding would drop a duplicate member or round a number,
	// and the verdict must be the one the CLI gives the same bytes.
	Card    json.RawMessage `json:"card" jsonschema:"the card: a JSON object (or any JSON value, which gets its verdict), or a string holding the card's text as read from a file; line and column count in that text"`
	Profile string          `json:"profile,omitempty" jsonschema:"the rule set: auto (default; chosen per card by its members), agentcard, agentcard-schema, a2a (the A2A release the card claims), a2a/0.1 to a2a/1.0, or ma2d"`
	Policy  string          `json:"policy,omitempty" jsonschema:"default, or production: plain http, localhost and private-address URLs become errors (no network calls)"`
}

type fetchArgs struct {
	URL     string `json:"url" jsonschema:"a base URL (https://example.com, whose well-known paths are tried) or the URL of a card"`
	Profile string `json:"profile,omitempty" jsonschema:"the rule set, as validate_card's (default auto)"`
}

type explainArgs struct {
	Rule string `json:"rule" jsonschema:"a rule ID as verdicts name it, e.g. field.required"`
}

type noArgs struct{}

// The tools' results. A verdict's bytes come from report.Encoder; these
// types give its JSON Schema and the test that holds the two together.

type verdictOut struct {
	Input    string       `json:"input" jsonschema:"where the card came from: <card> for validate_card, the URL for fetch_card"`
	Line     int          `json:"line" jsonschema:"1-based line where the card starts"`
	Offset   int64        `json:"offset" jsonschema:"byte offset where the card starts"`
	Valid    bool         `json:"valid" jsonschema:"true when the card has no error"`
	Profile  string       `json:"profile" jsonschema:"the profile that judged the card, empty when none did"`
	Errors   []findingOut `json:"errors" jsonschema:"findings that make the card invalid"`
	Warnings []findingOut `json:"warnings" jsonschema:"findings that do not"`
}

type findingOut struct {
	Rule    string `json:"rule" jsonschema:"stable rule ID; explain_rule describes it"`
	Path    string `json:"path" jsonschema:"RFC 6901 JSON pointer to the value at fault, empty for the card itself"`
	Message string `json:"message"`
	Line    int    `json:"line" jsonschema:"1-based line of the value at fault in the card as given"`
	Column  int    `json:"column" jsonschema:"1-based column, in Unicode characters, of the value at fault"`
}

type fetchOut struct {
	URL string `json:"url" jsonschema:"the URL as given"`
	verdictOut
	Card any `json:"card" jsonschema:"the card as served: JSON when it parses, else a string holding its text; null when it was too large"`
}

type ruleOut struct {
	ID          string   `json:"id"`
	Severity    string   `json:"severity" jsonschema:"error or warning; the production policy raises some warnings to errors"`
	Profiles    []string `json:"profiles" jsonschema:"profiles that apply the rule; all for every profile"`
	Description string   `json:"description"`
}

type rulesOut struct {
	Rules []ruleOut `json:"rules"`
}

// tools holds what the tools share. Safe for concurrent use.
type tools struct {
	cfg   Config
	fetch *fetch.Client
	// pools has a Validator pool per profile and policy, made up front so
	// that a call takes no lock.
	pools map[poolKey]*fastvalidate.Pool
	// signatures verifies the cards of validate_card and fetch_card
	// with the server's keys (--keys), as serve --keys does; nil without keys. signaturesErr
	// says why a verifier could not be made of them.
	signatures    *pipeline.Signatures
	signaturesErr error
}

type poolKey struct {
	profile string
	policy  fastvalidate.Policy
}

func (t *tools) register(s *mcp.Server) {
	t.pools = map[poolKey]*fastvalidate.Pool{}
	for _, name := range fastvalidate.Profiles() {
		for _, pol := range []fastvalidate.Policy{fastvalidate.PolicyDefault, fastvalidate.PolicyProduction} {
			t.pools[poolKey{name, pol}], _ = fastvalidate.NewPool(name, fastvalidate.WithPolicy(pol))
		}
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	addTool(s, &mcp.Tool{
		Name:  "validate_card",
		Title: "Validate an agent card",
		Description: "Judges an agent card exactly as the cardscan CLI does and returns the verdict as its JSONL record: " +
			"valid, the profile that judged it, and each error and warning with its rule ID, JSON pointer and message. " +
			"Pass the card's text as a string to have findings located in that text.",
		Annotations: readOnly,
	}, outSchema[verdictOut](), t.validateCard)
	addTool(s, &mcp.Tool{
		Name:  "fetch_card",
		Title: "Fetch and validate a published agent card",
		Description: "Discovers the agent card of a URL as `cardscan fetch` does (/.well-known/agentcard, then " +
			"/.well-known/agent-card.json, then /.well-known/agent.json; a URL naming a card is fetched as it is), " +
			"judges it with how it was served (Content-Type, Cache-Control, endpoint schemes), and returns the verdict " +
			"with the card." + privateNote(t.cfg.AllowPrivate),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(true)},
	}, outSchema[fetchOut](), t.fetchCard)
	addTool(s, &mcp.Tool{
		Name:        "list_rules",
		Title:       "List the validation rules",
		Description: "Lists every rule a verdict can name: its ID, default severity, the profiles that apply it and what it checks.",
		Annotations: readOnly,
	}, outSchema[rulesOut](), t.listRules)
	addTool(s, &mcp.Tool{
		Name:        "explain_rule",
		Title:       "Explain a validation rule",
		Description: "Says what one rule (an ID from a verdict, e.g. field.required) checks, its default severity and the profiles that apply it.",
		Annotations: readOnly,
	}, outSchema[ruleOut](), t.explainRule)
	t.registerSignatures(s)
}

// privateNote tells a model that fetch_card will not reach private
// addresses, unless the operator allowed them.
func privateNote(allowed bool) string {
	if allowed {
		return ""
	}
	return " Private and loopback addresses are refused."
}

// addTool adds a tool whose arguments are decoded by decodeArgs into an In
// and whose input schema is derived from In; out is the output schema.
//
// The SDK's generic mcp.AddTool is not used: it decodes the arguments into
// Go maps and encodes them again, which would judge another card than the
// one sent (see validateArgs.Card).
func addTool[In any](s *mcp.Server, t *mcp.Tool, out *jsonschema.Schema, h func(context.Context, *In) (*mcp.CallToolResult, error)) {
	in := inSchema[In]()
	t.InputSchema, t.OutputSchema = in, out
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args In
		if err := decodeArgs(req.Params.Arguments, in, &args); err != nil {
			return toolError(err), nil
		}
		if err := ctx.Err(); err != nil {
			return toolError(fmt.Errorf("%s: %w", t.Name, err)), nil
		}
		return h(ctx, &args)
	})
}

// inSchema derives the input schema of arguments of type T.
func inSchema[T any]() *jsonschema.Schema {
	s := mustSchema[T]()
	if p := s.Properties["profile"]; p != nil {
		p.Enum = profileEnum()
	}
	if p := s.Properties["policy"]; p != nil {
		p.Enum = []any{"default", "production"}
	}
	if c := s.Properties["card"]; c != nil {
		// Any JSON value: the verdict says what is wrong with it.
		*c = jsonschema.Schema{Description: c.Description}
	}
	return s
}

// outSchema derives the output schema of results of type T. Its objects
// accept members beyond those listed, so that a member the CLI's record
// gains later does not make clients that check the schema reject results.
func outSchema[T any]() *jsonschema.Schema {
	s := mustSchema[T]()
	openObjects(s)
	return s
}

func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types are fixed, and a test derives each
	}
	return s
}

func openObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		openObjects(p)
	}
	openObjects(s.Items)
}

func profileEnum() []any {
	var out []any
	for _, p := range fastvalidate.Profiles() {
		out = append(out, p)
	}
	return out
}

// cardInput names a card given to validate_card in its verdict, as
// "<stdin>" names standard input in the CLI's.
const cardInput = "<card>"

func (t *tools) validateCard(ctx context.Context, a *validateArgs) (*mcp.CallToolResult, error) {
	pool, err := t.pool(a.Profile, a.Policy)
	if err != nil {
		return toolError(err), nil
	}
	card, line, col, offset, err := cardBytes(a.Card)
	if err != nil {
		return toolError(err), nil
	}

	var vd report.Verdict
	v := pool.Get()
	defer pool.Put(v)
	if int64(len(card)) > t.cfg.MaxRecord {
		vd = report.TooLarge(cardInput, line, col, offset, t.cfg.MaxRecord)
		if a.Profile != "" && a.Profile != "auto" {
			vd.Profile = a.Profile
		}
	} else {
		vd = report.FromResult(cardInput, line, col, offset, card, v.Validate(card))
		if t.signaturesErr != nil {
			return toolError(t.signaturesErr), nil
		}
		if t.signatures != nil {
			// The same judge as serve's and the scan's, so that the
			// findings, signedBy and signers are theirs.
			pipeline.NewSignatureChecker(t.signatures).Check(&vd, card, "")
		}
	}
	var enc report.Encoder
	record := bytes.TrimSuffix(enc.AppendJSONL(nil, &vd), []byte("\n"))
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: verdictText(&enc, &vd)}},
		StructuredContent: json.RawMessage(record),
	}, nil
}

// cardBytes returns the card of a card argument: the value's bytes as
// sent, or the text a string holds from where the card starts in it (the
// first non-blank byte, as the CLI locates a card in a .json file), with
// that place. White space before a card changes no verdict.
func cardBytes(arg json.RawMessage) (card []byte, line, col int, offset int64, err error) {
	card, err = textOrValue("card", arg)
	if err != nil || len(arg) == 0 || arg[0] != '"' {
		return card, 1, 1, 0, err
	}
	card, line, col, offset = report.Start(card)
	return card, line, col, offset, nil
}

// textOrValue returns the text of a JSON string argument, or the bytes of
// any other value.
func textOrValue(name string, arg json.RawMessage) ([]byte, error) {
	if len(arg) == 0 || arg[0] != '"' {
		return arg, nil
	}
	var text string
	if err := json.Unmarshal(arg, &text); err != nil {
		return nil, fmt.Errorf("argument %q: %v", name, err)
	}
	return []byte(text), nil
}

// verdictText is the short rendering of a verdict: a line with the outcome,
// then the CLI's text line for each finding, card text in them quoted
// (report.Quoted) under a line that says so: a model reads this, and a
// card's values and member names must not pass for cardscan's words.
func verdictText(enc *report.Encoder, vd *report.Verdict) string {
	errs, warns := 0, 0
	vd.CountRules(func(_ fastvalidate.Code, sev fastvalidate.Severity, n int) {
		if sev == fastvalidate.SeverityError {
			errs += n
		} else {
			warns += n
		}
	})
	profile := vd.Profile
	if profile == "" {
		profile = "no profile"
	}
	var b []byte
	if vd.Valid {
		b = fmt.Appendf(b, "valid (%s)", profile)
	} else {
		b = fmt.Appendf(b, "invalid (%s)", profile)
	}
	b = fmt.Appendf(b, ": %s, %s\n", plural(errs, "error"), plural(warns, "warning"))
	if len(vd.Findings) > 0 {
		b = append(append(b, report.QuoteNote...), '\n')
	}
	b = enc.AppendText(b, vd, report.Quoted)
	return string(b)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// pool returns the Validators of a profile and policy named by arguments.
func (t *tools) pool(profile, policy string) (*fastvalidate.Pool, error) {
	if profile == "" {
		profile = "auto"
	}
	key := poolKey{profile: profile}
	switch policy {
	case "", "default":
	case "production":
		key.policy = fastvalidate.PolicyProduction
	default:
		return nil, fmt.Errorf("argument \"policy\": %q is not a policy; want default or production", policy)
	}
	p, ok := t.pools[key]
	if !ok {
		return nil, fmt.Errorf("argument \"profile\": unknown profile %q; known profiles: %s", profile, strings.Join(fastvalidate.Profiles(), ", "))
	}
	return p, nil
}

func (t *tools) fetchCard(ctx context.Context, a *fetchArgs) (*mcp.CallToolResult, error) {
	profile := a.Profile
	if profile == "" {
		profile = "auto"
	}
	if _, err := t.pool(profile, ""); err != nil {
		return toolError(err), nil
	}
	if t.signaturesErr != nil {
		return toolError(t.signaturesErr), nil
	}
	var sig *pipeline.SignatureChecker
	if t.signatures != nil {
		// As validate_card, and as cardscan fetch --keys binds a card's
		// signatures to the origin that served it.
		sig = pipeline.NewSignatureChecker(t.signatures)
	}
	fd, err := t.fetch.Fetch(ctx, a.URL, profile, sig)
	if err != nil {
		return toolError(err), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(fd.Text)}},
		StructuredContent: json.RawMessage(bytes.TrimSuffix(fd.Record, []byte("\n"))),
	}, nil
}

func describeRule(r rule.Rule) ruleOut {
	return ruleOut{
		ID:          r.ID,
		Severity:    r.Severity.String(),
		Profiles:    strings.Split(r.Profiles.String(), ","),
		Description: r.Description,
	}
}

func (r *ruleOut) text() string {
	return fmt.Sprintf("%s (%s; %s): %s\n", r.ID, r.Severity, strings.Join(r.Profiles, ", "), r.Description)
}

func (t *tools) listRules(_ context.Context, _ *noArgs) (*mcp.CallToolResult, error) {
	var out rulesOut
	var text strings.Builder
	for _, r := range rule.All() {
		d := describeRule(r)
		out.Rules = append(out.Rules, d)
		text.WriteString(d.text())
	}
	return structured(out, text.String())
}

func (t *tools) explainRule(_ context.Context, a *explainArgs) (*mcp.CallToolResult, error) {
	r, ok := rule.Lookup(a.Rule)
	if !ok {
		msg := fmt.Sprintf("argument \"rule\": no rule %q", a.Rule)
		if near := nearRules(a.Rule); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return toolError(fmt.Errorf("%s (list_rules names them all)", msg)), nil
	}
	d := describeRule(r)
	return structured(d, d.text())
}

// nearRules suggests rule IDs for a mistyped one: the near name the CLI's
// explain suggests (internal/suggest), else those equal but for case and
// separators, else those of the same family (before the first dot).
func nearRules(id string) []string {
	rules := rule.All()
	ids := make([]string, len(rules))
	for i, r := range rules {
		ids[i] = r.ID
	}
	if near := suggest.Nearest(id, ids); near != "" {
		return []string{near}
	}
	norm := func(s string) string {
		return strings.NewReplacer("_", "-", " ", "-").Replace(strings.ToLower(strings.TrimSpace(s)))
	}
	var exact, family []string
	fam, _, _ := strings.Cut(norm(id), ".")
	for _, r := range ids {
		switch {
		case norm(r) == norm(id):
			exact = append(exact, r)
		case fam != "" && strings.HasPrefix(r, fam+"."):
			family = append(family, r)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	if len(family) > 8 {
		family = family[:8]
	}
	return family
}

// structured returns v as structured content with a text rendering.
func structured(v any, text string) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(b),
	}, nil
}
