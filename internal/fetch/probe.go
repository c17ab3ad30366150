package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/internal/summary"
	"github.com/cardscan/cardscan/internal/visible"
)

type probeOptions struct {
	manners
	// parsed is format, parsed by parseFormat, or formatErr why not.
	parsed         report.Format
	formatErr      error
	paths          []string
	jobs           int
	format         string
	failOn         string
	allowPrivate   bool
	includeInvalid bool
	resume         string
	summary        string
	hooks          *testHooks
}

const probeUsageHead = `usage: cardscan probe [flags] [PATH ...]

Asks every interface an A2A card advertises whether it speaks what the
card says, with calls that change nothing: JSONRPC GetTask (tasks/get in
0.x) and HTTP+JSON GET /tasks/{id} (/v1/tasks/{id} in 0.3) for a task id
that cannot exist, expecting the binding's task-not-found error, and the
same GetTask over gRPC. Each https interface's certificate is verified
for its host; when the card promises an extended card, its endpoint is
asked without credentials and should ask for them. Nothing that sends a
message or creates a task is ever called.

PATH is a card file (.json), an NDJSON dump (.ndjson, .jsonl, also zstd
or gzip compressed), the output of cardscan fetch --format cards, or -
for standard input (the default). Only valid cards are probed unless
--include-invalid. Every interface yields one JSON record, in the order
of the cards, under the probe.* rules (cardscan explain probe.html).

Loopback, private, link-local, CGNAT, multicast and unspecified addresses
are refused unless --allow-private, as in cardscan fetch.

flags:
`

const probeUsageTail = `
exit status: 0 every interface answered as declared (per --fail-on), 1 one
did not, 2 usage error, 3 an input could not be read (or the records
could not be written), or every record was a fetch record without a card.
`

func newProbeFlagSet(o *probeOptions) *cmdflag.Set {
	var fs cmdflag.Set
	fs.Int(&o.jobs, "-j, --jobs N", 16, "interfaces probed at a time, across hosts")
	fs.Int(&o.perHost, "--per-host N", 2, "requests in flight to one host at most")
	fs.String(&o.format, "--format FORMAT", "jsonl", "jsonl (a record per interface), sarif, or text")
	fs.String(&o.failOn, "--fail-on LEVEL", "error", "error, warning or never: what makes the exit status 1")
	fs.Duration(&o.timeout, "--timeout D", 10*time.Second, "time limit for each request, from when it is sent\nto the end of its answer")
	fs.Duration(&o.connectTimeout, "--connect-timeout D", 5*time.Second, "time limit for each connection, TLS included")
	fs.Int(&o.retries, "--retries N", 2, "tries more of a request answered 429 or 503")
	fs.Duration(&o.maxRetryWait, "--max-retry-wait D", 30*time.Second, "longest Retry-After waited for; longer is the answer")
	fs.Duration(&o.maxTime, "--max-time D", time.Minute, "time limit for one interface: all its requests,\nretries and waits")
	fs.String(&o.userAgent, "--user-agent S", defaultUserAgent(), "the User-Agent header (default cardscan/VERSION ...)").HideDefault()
	fs.Bool(&o.allowPrivate, "--allow-private", "let interfaces reach loopback, private and link-local addresses")
	fs.Bool(&o.includeInvalid, "--include-invalid", "probe the interfaces of invalid cards too")
	fs.String(&o.resume, "--resume FILE", "", "append the records to FILE (--format jsonl), skipping\nthe interfaces it already holds: a probe stopped goes on")
	fs.String(&o.summary, "--summary FILE", "", "write a JSON summary to FILE ('-' for stdout), with the\ninterfaces counted by what they answered")
	o.maxRecord = defaultMaxRecord
	fs.Var(&o.maxRecord, "--max-record SIZE", "longest card read, e.g. 2MiB")
	return &fs
}

func parseProbeArgs(args []string) (*probeOptions, error) {
	o := &probeOptions{}
	paths, err := newProbeFlagSet(o).Parse(args)
	if err != nil {
		return nil, err
	}
	o.paths = paths
	if len(o.paths) == 0 {
		o.paths = []string{"-"}
	}
	switch {
	case o.jobs < 1 || o.jobs > 1024:
		return nil, fmt.Errorf("-j %d: want 1 to 1024 interfaces at a time", o.jobs)
	case !o.parseFormat():
		return nil, fmt.Errorf("--format %s", o.formatErr)
	case !slices.Contains([]string{"error", "warning", "never"}, o.failOn):
		return nil, fmt.Errorf("--fail-on %q: want error, warning or never", o.failOn)
	case o.manners.check() != nil:
		return nil, o.manners.check()
	case o.resume != "" && o.parsed != report.FormatJSONL:
		return nil, fmt.Errorf("--resume needs --format jsonl, whose records name each interface (not %s)", o.format)
	}
	for _, p := range o.paths {
		if o.resume != "" && sameFile(o.resume, p) {
			return nil, fmt.Errorf("--resume %s is also an input", o.resume)
		}
		if o.summary != "" && o.summary != "-" && sameFile(o.summary, p) {
			return nil, fmt.Errorf("--summary %s is also an input", o.summary)
		}
	}
	return o, nil
}

// RunProbe is `cardscan probe ARGS`.
func RunProbe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runProbe(args, stdin, stdout, stderr, nil)
}

func runProbe(args []string, stdin io.Reader, stdout, stderr io.Writer, hooks *testHooks) (err error) {
	con := console.New(stderr)
	o, err := parseProbeArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, probeUsageHead+newProbeFlagSet(&probeOptions{}).Help()+probeUsageTail)
			return nil
		}
		return cmderr.Usage("cardscan probe", err)
	}
	o.hooks = hooks
	if o.resume == "" || o.summary == "-" {
		var read []clobber.File
		for _, p := range o.paths {
			read = append(read, clobber.File{Role: "the input", Path: p})
		}
		if err := clobber.Check(read, []clobber.File{{Role: "standard output", Path: "-"}}, stdin, stdout); err != nil {
			return cmderr.Usage("cardscan probe", err)
		}
	}
	out := stdout
	var done map[string]int
	if o.resume != "" {
		f, held, tail, err := openResumeOf(o.resume, maxResumeLine(int64(o.maxRecord)), probeRecords)
		if err != nil {
			return cmderr.IOf("--resume %s", err)
		}
		if tail.bytes > 0 {
			con.Printf("--resume %s:%d: cut off the damaged tail from this line on (%d bytes: a record cut short, or NUL bytes); its interfaces are probed again", o.resume, tail.line, tail.bytes)
		}
		defer cmderr.CloseOutput(f, "--resume "+o.resume, &err)
		out, done = f, held
	}
	total, err := probeAll(context.Background(), o, stdin, out, con, done)
	return writeSummary(o.summary, &total, stdout, err)
}

// probeRecords are cardscan probe's records, keyed by the card (input and
// line) and the interface's pointer in it: input_base64's bytes for the
// input when the record has them (a name that is not UTF-8, which input
// holds with U+FFFD for its bad bytes).
var probeRecords = resumeKind{name: "a record of cardscan probe", key: func(line []byte) (string, bool) {
	var rec struct {
		Input       *string `json:"input"`
		InputBase64 []byte  `json:"input_base64"`
		Line        int     `json:"line"`
		Probe       *struct {
			Pointer string `json:"pointer"`
		} `json:"probe"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Input == nil || rec.Probe == nil {
		return "", false
	}
	input := *rec.Input
	if rec.InputBase64 != nil {
		input = string(rec.InputBase64)
	}
	return probeKey(input, rec.Line, rec.Probe.Pointer), true
}}

func probeKey(input string, line int, pointer string) string {
	return input + "\x00" + strconv.Itoa(line) + "\x00" + pointer
}

type probeResult struct {
	out   []byte
	class string
	errs  int
	warns int
	rules map[string]int64
}

// probeAll probes the interfaces of the cards of o.paths, jobs at a time,
// and writes a record per interface in the cards' order. Memory is bounded
// whatever the number of cards: the cards are read as the queue of
// interfaces under way has room, and a card is kept only as long as its
// interfaces are.
func probeAll(ctx context.Context, o *probeOptions, stdin io.Reader, out io.Writer, con *console.Console, done map[string]int) (summary.Summary, error) {
	start := time.Now()
	f := newFetcher(netConfig{
		timeout:        o.timeout,
		connectTimeout: min(o.connectTimeout, o.timeout),
		maxBytes:       maxAnswer,
		perHost:        o.perHost,
		retries:        o.retries,
		maxRetryWait:   o.maxRetryWait,
		maxTime:        o.maxTime,
		userAgent:      o.userAgent,
		allowPrivate:   o.allowPrivate,
		hooks:          o.hooks,
	})
	p := &prober{f: f, grpc: newGRPCProber(f, o.perHost)}
	pool, _ := fastvalidate.NewPool("auto")

	// Interfaces start as their hosts have room (hostScheduler), and the
	// records are written in the cards' order. A host has room for twice
	// --per-host interfaces under way: the hostLimiter keeps its requests
	// to --per-host, and the next ones are ready when those end, rather
	// than started only then (20,000 interfaces of one host took 16.8 s
	// that way, 13.9 s this way: docs/performance.md). A busy host holds
	// 2 × --per-host of the -j probes at most.
	sched := newHostScheduler(o.jobs, 2*o.perHost, max(256, 8*o.jobs), maxPending, func(r probeResult) int64 { return int64(len(r.out)) })
	total := summary.Summary{Counts: summary.Counts{Rules: map[string]int64{}, Profiles: map[string]int64{}}, Shards: 1, Probes: &summary.Probes{}}
	var readErrors int64
	var skipped skippedRecords
	var failing int64 // interfaces with an error finding
	// Once no record can be written, nothing more is asked: the
	// interfaces under way end at once, and no more cards are read.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		defer sched.close()
		v := pool.Get()
		defer pool.Put(v)
		for _, path := range o.paths {
			if ctx.Err() != nil {
				return
			}
			name, file := path, path
			if path == "-" {
				name, file = "<stdin>", ""
			}
			total.Inputs++
			if err := readInput(ctx, name, file, stdin, o, v, done, &total, &skipped, con, func(pc *probeCard, it *iface) {
				sched.submit(it.host(), func() probeResult {
					return renderProbe(pc, it, p.probe(ctx, it), o.parsed)
				})
			}); err != nil {
				con.Errorf("probe: %s: %v", name, err)
				readErrors++
			}
		}
	}()

	// A SARIF log's results are framed; the other formats' records are
	// written as they are.
	var sarif report.VerdictWriter
	sink := recordSink{out: out, con: con, stop: stop}
	if o.parsed == report.FormatSARIF {
		sarif = o.parsed.Writer(out, report.WriterOptions{})
		sarif.Head()
		sink.out = sarif
	}
	sched.each(func(res probeResult) {
		if !sink.write(res.out) {
			return // stopped: neither written nor counted
		}
		countProbe(&total, &res)
		if res.errs > 0 {
			failing++
		}
	})
	total.InputErrors += readErrors
	total.Seconds = time.Since(start).Seconds()
	total.Finish()
	// The cards' own findings are validation's business: the status
	// judges what the interfaces answered. Records without a card fail
	// the run only when there was no card at all, as fetch fails only
	// when no URL yielded one.
	verdict := cmderr.Verdict(o.failOn, failing, total.Warnings)
	if readErrors > 0 || sink.errored || skipped.noCard > 0 && total.Records == 0 {
		verdict = cmderr.ErrIOReported
	}
	if sarif != nil && !sink.failed {
		sarif.Tail(probeRunEnd(&total, verdict))
	}
	con.Printf("%s", probeHuman(&total, skipped))
	return total, verdict
}

// readInput reads one input's cards and hands each interface to probe, in
// order, until ctx ends. An unreadable record is diagnosed and skipped; a
// read error ends the input.
func readInput(ctx context.Context, name, path string, stdin io.Reader, o *probeOptions, v *fastvalidate.Validator, done map[string]int, total *summary.Summary, skipped *skippedRecords, con *console.Console, probe func(*probeCard, *iface)) error {
	r, err := openCards(name, path, stdin, int64(o.maxRecord))
	if err != nil {
		return err
	}
	defer r.Close()
	for ctx.Err() == nil {
		text, line, err := r.next()
		if err == io.EOF {
			return nil
		}
		var long *longRecord
		if errors.As(err, &long) {
			con.Errorf("probe: %s:%d: %v; its interfaces are not probed", name, line, err)
			total.InputErrors++
			skipped.long++
			continue
		}
		if err != nil {
			return err
		}
		pc := readProbeCard(name, line, text, v)
		total.BytesRead += int64(len(text))
		total.BytesDecompressed += int64(len(text))
		if pc.err != "" {
			// No card to judge or probe: an input error, as fetch counted
			// the URL, rather than an invalid card of no profile.
			con.Errorf("probe: %s:%d: %s; nothing to probe", name, line, pc.err)
			total.InputErrors++
			skipped.noCard++
			continue
		}
		total.Records++
		if pc.valid {
			total.Valid++
		} else {
			total.Invalid++
		}
		prof := pc.profile
		if prof == "" {
			prof = "none"
		}
		total.Profiles[prof]++
		if !pc.valid && !o.includeInvalid && len(pc.ifaces) > 0 {
			total.Probes.CardsSkipped++
			continue
		}
		for i := range pc.ifaces {
			it := &pc.ifaces[i]
			key := probeKey(name, line, it.pointer)
			if n := done[key]; n > 0 {
				done[key] = n - 1
				continue
			}
			probe(&pc, it)
		}
	}
	return nil
}

func countProbe(total *summary.Summary, res *probeResult) {
	p := total.Probes
	p.Interfaces++
	switch res.class {
	case classAnswering:
		p.Answering++
	case classAuthRequired:
		p.AuthRequired++
	case classWrongBinding:
		p.WrongBinding++
	case classTLS:
		p.TLS++
	case classUnreachable:
		p.Unreachable++
	default:
		p.NotProbed++
	}
	total.Errors += int64(res.errs)
	total.Warnings += int64(res.warns)
	for k, v := range res.rules {
		total.Rules[k] += v
	}
}

// skippedRecords counts the records read that held no card to probe,
// which the summary counts as input errors.
type skippedRecords struct {
	noCard int64 // fetch records of a URL that yielded none
	long   int64 // longer than --max-record
}

// probeHuman is the line written to stderr at the end of a run.
func probeHuman(s *summary.Summary, skipped skippedRecords) string {
	p := s.Probes
	msg := fmt.Sprintf("probe: %s of %s: %d answering, %d asking for credentials, %d wrong binding, %d TLS problems, %d unreachable, %d not probed",
		plural(p.Interfaces, "interface"), plural(s.Records, "card"), p.Answering, p.AuthRequired, p.WrongBinding, p.TLS, p.Unreachable, p.NotProbed)
	if p.CardsSkipped > 0 {
		msg += fmt.Sprintf("; %d invalid cards not probed (--include-invalid probes them)", p.CardsSkipped)
	}
	if skipped.noCard > 0 {
		msg += "; " + plural(skipped.noCard, "fetch record") + " without a card (input errors)"
	}
	if skipped.long > 0 {
		msg += "; " + plural(skipped.long, "record") + " longer than --max-record (input errors)"
	}
	return msg + fmt.Sprintf("; %.2f s", s.Seconds)
}

func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// parseFormat parses --format, and says whether it is a probe's.
func (o *probeOptions) parseFormat() bool {
	o.parsed, o.formatErr = report.ParseFormat(o.format, report.FormatJSONL, report.FormatSARIF, report.FormatText)
	return o.formatErr == nil
}

// renderProbe renders the record of one interface.
func renderProbe(pc *probeCard, it *iface, o outcome, format report.Format) probeResult {
	res := probeResult{class: o.class, rules: map[string]int64{}}
	for _, f := range o.findings {
		res.rules[f.Code.String()]++
		if f.Severity == fastvalidate.SeverityError {
			res.errs++
		} else {
			res.warns++
		}
	}
	vd := report.Verdict{Input: pc.input, Line: pc.line, Column: 1, Valid: res.errs == 0, Profile: pc.profile, Findings: o.findings}
	var enc report.Encoder
	switch format {
	case report.FormatSARIF:
		res.out = enc.AppendSARIF(nil, &vd)
	case report.FormatText:
		if len(vd.Findings) == 0 {
			res.out = fmt.Appendf(nil, "%s:%d: %s %s (%s): %s, %s\n", report.TextSafe(pc.input), pc.line, it.pointer, report.TextSafe(it.shown()), report.TextSafe(it.binding), o.class, report.TextSafe(o.answer))
		} else {
			res.out = enc.AppendText(nil, &vd, report.Plain)
		}
	default:
		b := append([]byte{'{'}, enc.AppendJSONMembers(nil, &vd)...)
		b = append(b, `,"probe":`...)
		b = appendProbeJSON(b, pc, it, &o)
		res.out = append(b, "}\n"...)
	}
	return res
}

// probeJSON is the probe member of a record.
type probeJSON struct {
	Pointer  string   `json:"pointer"`
	URL      string   `json:"url"`
	Binding  string   `json:"binding"`
	Version  string   `json:"protocol_version"`
	CardURL  string   `json:"card_url,omitempty"`
	Class    string   `json:"class"`
	Answer   string   `json:"answer"`
	Status   int      `json:"status,omitempty"`
	TTFBMS   *float64 `json:"ttfb_ms,omitempty"`
	Server   string   `json:"server_version,omitempty"`
	TLS      *tlsJSON `json:"tls,omitempty"`
	Extended string   `json:"extended_card,omitempty"`
}

type tlsJSON struct {
	Verified bool   `json:"verified"`
	DaysLeft *int   `json:"days_left,omitempty"`
	NotAfter string `json:"not_after,omitempty"`
}

func appendProbeJSON(dst []byte, pc *probeCard, it *iface, o *outcome) []byte {
	pj := probeJSON{Pointer: it.pointer, URL: it.shown(), Binding: it.binding, Version: it.version, CardURL: pc.cardURL,
		Class: o.class, Answer: o.answer, Status: o.status, Server: o.server, Extended: o.extended}
	if o.ttfb > 0 {
		ms := float64(o.ttfb.Microseconds()) / 1000
		pj.TTFBMS = &ms
	}
	if t := o.tls; t != nil {
		pj.TLS = &tlsJSON{Verified: t.verified}
		if t.verified {
			days := t.daysLeft
			pj.TLS.DaysLeft = &days
			pj.TLS.NotAfter = t.notAfter.UTC().Format(time.RFC3339)
		}
	}
	b, _ := json.Marshal(&pj) // strings and numbers always marshal
	// Card and server text with hidden characters as \u escapes, as in
	// the verdict members before it.
	return append(dst, visible.EscapeJSON(b)...)
}

// probeRunEnd is the end of a SARIF log of a probe run: the rules that
// fired, described as everywhere else.
func probeRunEnd(s *summary.Summary, verdict error) *report.RunEnd {
	t := &report.RunEnd{Name: "cardscan", InformationURI: "https://github.com/cardscan/cardscan",
		Successful: s.InputErrors == 0 && !errors.Is(verdict, cmderr.ErrIOReported), ExitCode: cmderr.Status(verdict)}
	for _, r := range rule.All() {
		if s.Rules[r.ID] > 0 {
			t.Rules = append(t.Rules, ruledoc.SARIF(r))
		}
	}
	return t
}

// probeFound asks the interfaces of a card fetch found and judged valid,
// for fetch --probe: a cards record carries their records in a probes
// array; in jsonl, each follows the card's verdict as a line of its own.
func probeFound(ctx context.Context, p *prober, rec *record, cards bool, res *result) {
	if !rec.vd.Valid || !strings.HasPrefix(rec.vd.Profile, "a2a") {
		return
	}
	ifaces := interfacesOf(rec.card)
	if len(ifaces) == 0 {
		return
	}
	pc := &probeCard{input: rec.vd.Input, line: rec.vd.Line, cardURL: redactPassword(rec.requested), valid: true, profile: rec.vd.Profile}
	counts := summary.Summary{Counts: summary.Counts{Rules: map[string]int64{}}, Probes: &summary.Probes{}}
	var probes []byte
	for i := range ifaces {
		var o outcome
		if mt := maxTimeOf(ctx); mt != nil {
			// The URL's time is spent: the rest are not asked, and say so.
			o = outcome{class: classNotProbed, answer: "not probed"}
			o.add(fastvalidate.CodeProbeNotProbed, ifaces[i].pointer, "not asked: "+mt.Error()+" for the card's URL")
		} else {
			o = p.probe(ctx, &ifaces[i])
		}
		pr := renderProbe(pc, &ifaces[i], o, report.FormatJSONL)
		countProbe(&counts, &pr)
		if pr.errs > 0 {
			res.probeErrors++
		}
		if !cards {
			res.out = append(res.out, pr.out...)
			continue
		}
		if len(probes) > 0 {
			probes = append(probes, ',')
		}
		probes = append(probes, bytes.TrimSuffix(pr.out, []byte("\n"))...)
	}
	if cards {
		// The record ends "}\n": the probes go in as its last member.
		out := res.out[:len(res.out)-2]
		out = append(out, `,"probes":[`...)
		out = append(out, probes...)
		res.out = append(out, "]}\n"...)
	}
	res.stats.Probes = counts.Probes
	for k, v := range counts.Rules {
		res.stats.Rules[k] += v
	}
	res.stats.Errors += counts.Errors
	res.stats.Warnings += counts.Warnings
}

// ProbeFlagSet returns cardscan probe's flags, for completion and the
// manual page.
func ProbeFlagSet() *cmdflag.Set { return newProbeFlagSet(&probeOptions{}) }
