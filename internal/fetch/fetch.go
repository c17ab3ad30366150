// Package fetch implements `cardscan fetch`: discovery of agent cards over
// HTTP as the specs describe it, and their validation.
//
// For each base URL it GETs /.well-known/agentcard (the AgentCard draft),
// then /.well-known/agent-card.json and /.well-known/agent.json (A2A), and
// judges the first card found with the auto profile, together with how it
// was served: its Content-Type, a Cache-Control header, and for AgentCards
// the draft's section 8.5 rule that a card's endpoints use the scheme it
// was fetched over (for A2A and MA2D cards, a warning when that scheme is
// plain http). A path that answers something other than a card (the HTML
// of a single-page app's fallback) moves on to the next. Fetches are
// bounded by timeouts, a body cap and at most three redirects, never from
// https to http, and never to a private address unless allowed; every URL
// yields one record, a verdict or a fetch failure under its own rule.
package fetch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/summary"
	"github.com/cardscan/cardscan/internal/trustfile"
)

const defaultMaxRecord = 2 << 20

// maxPending bounds the bytes of records fetched but not yet written
// because a URL before them is still being fetched. With the records in
// flight (at most -j, each up to --max-record and its rendering), it
// bounds a crawl's memory whatever the list's length.
const maxPending = 32 << 20

type options struct {
	manners
	urls         []string
	urlsFile     string
	jobs         int
	profile      string
	format       string
	parsed       report.Format // format, when not cards
	all          bool
	failOn       string
	color        string
	allowPrivate bool
	resume       string
	summary      string
	probe        bool
	sig          trustfile.Flags
	// hooks replace DNS, the trusted CAs, the proxy settings or the
	// transport, for tests.
	hooks *testHooks
}

// usageHead and usageTail frame the flags' help, which the flag
// declarations write.
const usageHead = `usage: cardscan fetch [flags] URL ...
       cardscan fetch [flags] --urls FILE

Discovers the agent card of each URL as the specs describe it: GET
/.well-known/agentcard, then /.well-known/agent-card.json, then
/.well-known/agent.json below the URL (a URL naming a .json file or a
well-known path is fetched as it is), and judges the first card found,
with how it was served: Content-Type, Cache-Control (section 4 of the
AgentCard draft) and endpoint schemes against the fetch scheme (section 8.5).
Every URL yields one record: its card's verdict, or why there was no card
(rules http.unreachable, http.timeout, http.status, http.not-a-card,
http.too-large, http.redirect, http.blocked-address).

Loopback, private, link-local, CGNAT, multicast and unspecified addresses
are refused, whether a URL names them, a redirect leads to them or a name
resolves to them; --allow-private lifts that, for intranet crawls.

flags:
`

const usageTail = `
exit status: 0 every card passed, 1 a card failed, 2 usage error,
3 no URL could be read at all (or the records could not be written).
`

// usage is the text of --help.
func usage() string { return usageHead + newFlagSet(&options{}).Help() + usageTail }

// FlagSet returns fetch's flags as declared, for cardscan's completion
// scripts and manual page.
func FlagSet() *cmdflag.Set { return newFlagSet(&options{}) }

// newFlagSet declares fetch's flags, to be parsed into o.
func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.urlsFile, "--urls FILE", "", "fetch every URL listed in FILE, one per line ('-' for\n"+
		"standard input; blank lines and # comments skipped)")
	fs.Int(&o.jobs, "-j, --jobs N", 8, "fetches at a time, across hosts")
	fs.Int(&o.perHost, "--per-host N", 2, "requests in flight to one host at most")
	fs.String(&o.profile, "--profile NAME", "auto", "rule set")
	// The default depends on --urls, so the help says it.
	fs.String(&o.format, "--format FORMAT", "", "text, jsonl, github, or cards: a JSON line for every\n"+
		"URL, with its verdict and the card itself\n"+
		"(default text; cards with --urls or --resume)")
	fs.Bool(&o.all, "--all", "jsonl: a verdict for every card; text: an ok line per valid card")
	fs.String(&o.color, "--color WHEN", "auto", "auto, always or never")
	fs.String(&o.failOn, "--fail-on LEVEL", "error", "error, warning or never: what makes the exit status 1")
	fs.Duration(&o.timeout, "--timeout D", 10*time.Second, "time limit for each request, from when it is sent\n"+
		"to the end of its body (a redirect is another request)")
	fs.Duration(&o.connectTimeout, "--connect-timeout D", 5*time.Second, "time limit for each connection, TLS included")
	fs.Int(&o.retries, "--retries N", 2, "tries more of a path answering 429 or 503")
	fs.Duration(&o.maxRetryWait, "--max-retry-wait D", 30*time.Second, "longest Retry-After waited for; longer is a failure")
	fs.Duration(&o.maxTime, "--max-time D", time.Minute, "time limit for one URL: all its requests, redirects,\n"+
		"retries and waits (with --probe, its probes too)")
	fs.String(&o.userAgent, "--user-agent S", defaultUserAgent(), "the User-Agent header (default cardscan/VERSION ...)").HideDefault()
	fs.Bool(&o.allowPrivate, "--allow-private", "let URLs reach loopback, private and link-local addresses")
	fs.String(&o.resume, "--resume FILE", "", "append the records to FILE (--format cards), skipping\n"+
		"the URLs it already holds: a crawl stopped goes on")
	fs.String(&o.summary, "--summary FILE", "", "write a JSON summary to FILE ('-' for stdout), with the\n"+
		"URLs without a card by rule")
	o.maxRecord = defaultMaxRecord
	fs.Var(&o.maxRecord, "--max-record SIZE", "largest card read, e.g. 2MiB")
	fs.Bool(&o.probe, "--probe", "ask each interface of each valid A2A card found, as\ncardscan probe does (--format cards or jsonl)")
	o.sig.AddFlags(&fs)
	return &fs
}

// Run is `cardscan fetch ARGS`.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return run(args, stdin, stdout, stderr, nil)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, hooks *testHooks) (err error) {
	con := console.New(stderr)
	o, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return nil
		}
		return cmderr.Usage("cardscan fetch", err)
	}
	o.hooks = hooks
	if o.resume == "" || o.summary == "-" {
		read := o.sig.ReadFiles()
		if o.urlsFile != "" {
			read = append(read, clobber.File{Role: "--urls", Path: o.urlsFile})
		}
		if err := clobber.Check(read, []clobber.File{{Role: "standard output", Path: "-"}}, stdin, stdout); err != nil {
			return cmderr.Usage("cardscan fetch", err)
		}
	}
	var list io.Reader
	if o.urlsFile != "" {
		list = stdin
		if o.urlsFile != "-" {
			f, err := openFile(o.urlsFile)
			if err != nil {
				return cmderr.IOf("--urls %s: %s", o.urlsFile, err)
			}
			defer f.Close() // read only: nothing to lose
			list = f
		}
	}
	out := stdout
	var done map[string]int
	if o.resume != "" {
		f, held, tail, err := openResume(o.resume, maxResumeLine(int64(o.maxRecord)))
		if err != nil {
			return cmderr.IOf("--resume %s", err)
		}
		if tail.bytes > 0 {
			con.Printf("--resume %s:%d: cut off the damaged tail from this line on (%d bytes: a record cut short, or NUL bytes); its URLs are fetched again", o.resume, tail.line, tail.bytes)
		}
		defer cmderr.CloseOutput(f, "--resume "+o.resume, &err)
		out, done = f, held
	}
	style := report.Plain
	if o.parsed == report.FormatText && cmdflag.WantColor(o.color, stdout) {
		style = report.Color
	}
	total, err := fetchAll(context.Background(), o, newURLSource(o.urls, list, done, func(line int) {
		con.Errorf("--urls %s:%d: longer than %d bytes: not a URL; skipped", o.urlsFile, line, maxURLLine)
	}), out, con, style)
	return writeSummary(o.summary, &total, stdout, err)
}

// writeSummary writes a --summary, when one is asked for, of a run that
// ended with err, and returns the run's way out: a summary that cannot be
// written is an I/O failure. A run stopped by a usage error has nothing
// to sum up.
func writeSummary(path string, total *summary.Summary, stdout io.Writer, err error) error {
	var usage *cmderr.UsageError
	if path == "" || errors.As(err, &usage) {
		return err
	}
	if werr := total.WriteFile(path, stdout); werr != nil {
		return cmderr.IOf("--summary %s: %s", path, pathErr(werr))
	}
	return err
}

// parseFormat parses a --format that is a verdict's, and says whether it
// was one.
func (o *options) parseFormat() bool {
	var err error
	o.parsed, err = report.ParseFormat(o.format, report.FormatText, report.FormatJSONL, report.FormatGitHub)
	return err == nil
}

// sameFile tells whether a and b name one file: the same path, or two
// paths to one existing file.
func sameFile(a, b string) bool {
	if b == "" || b == "-" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// pathErr drops the operation and path an *os.PathError repeats.
// openFile opens a file to read, its errors without the path (the caller
// names it): a directory is refused here, "is a directory", rather than
// on the first read in the system call's words.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, pathErr(err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, syscall.EISDIR
	}
	return f, nil
}

func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func parseArgs(args []string) (*options, error) {
	o := &options{}
	urls, err := newFlagSet(o).Parse(args)
	if err != nil {
		return nil, err
	}
	o.urls = urls
	if o.format == "" {
		o.format = "text"
		if o.urlsFile != "" || o.resume != "" {
			o.format = "cards"
		}
	}
	switch {
	case len(o.urls) == 0 && o.urlsFile == "":
		return nil, errors.New("no URL to fetch")
	case o.jobs < 1 || o.jobs > 1024:
		return nil, fmt.Errorf("-j %d: want 1 to 1024 fetches at a time", o.jobs)
	case o.format != "cards" && !o.parseFormat():
		return nil, fmt.Errorf("--format %q: want text, jsonl, github or cards", o.format)
	case !slices.Contains([]string{"error", "warning", "never"}, o.failOn):
		return nil, fmt.Errorf("--fail-on %q: want error, warning or never", o.failOn)
	case !slices.Contains([]string{"auto", "always", "never"}, o.color):
		return nil, fmt.Errorf("--color %q: want auto, always or never", o.color)
	case o.manners.check() != nil:
		return nil, o.manners.check()
	case o.resume != "" && o.format != "cards":
		return nil, fmt.Errorf("--resume needs --format cards, whose records name the URL as listed (not %s)", o.format)
	case o.probe && o.format != "cards" && o.parsed != report.FormatJSONL:
		return nil, fmt.Errorf("--probe needs --format cards or jsonl, whose records carry the probes (not %s)", o.format)
	case o.summary != "" && o.summary != "-" && (sameFile(o.summary, o.urlsFile) || sameFile(o.summary, o.resume)):
		// Writing the summary would replace the list or the records.
		return nil, fmt.Errorf("--summary %s is also the URL list or the --resume file", o.summary)
	}
	if err := cmdflag.CheckProfile(o.profile); err != nil {
		return nil, err
	}
	if err := o.sig.Check(false); err != nil {
		return nil, err
	}
	return o, nil
}

// result is what one URL came to, rendered.
type result struct {
	out   []byte
	text  []byte   // rendered by fetchOne's second renderer, when given one
	fail  *failure // why no card was judged, or nil
	stats summary.Summary
	// probeErrors counts the card's interfaces with a probe error
	// finding, under --probe.
	probeErrors int64
}

// fetchAll fetches the URLs jobs at a time and writes one record per URL,
// in the order of the URLs. It returns the exit status and the run's
// summary.
func fetchAll(ctx context.Context, o *options, src *urlSource, stdout io.Writer, con *console.Console, style report.Style) (summary.Summary, error) {
	start := time.Now()
	f := newFetcher(netConfig{
		timeout:        o.timeout,
		connectTimeout: min(o.connectTimeout, o.timeout),
		maxBytes:       int64(o.maxRecord),
		perHost:        o.perHost,
		retries:        o.retries,
		maxRetryWait:   o.maxRetryWait,
		maxTime:        o.maxTime,
		userAgent:      o.userAgent,
		allowPrivate:   o.allowPrivate,
		hooks:          o.hooks,
	})
	if o.probe {
		f.prober = &prober{f: f, grpc: newGRPCProber(f, o.perHost)}
	}
	pool, err := fastvalidate.NewPool(o.profile)
	if err != nil {
		return summary.Summary{}, cmderr.UsageStop(err)
	}
	wo := report.WriterOptions{All: o.all, Style: style}
	renderers := sync.Pool{New: func() any { return &renderer{cards: o.format == "cards", r: o.parsed.Renderer(wo)} }}
	// Key sets a trust policy names are fetched as cards are, through the
	// same address guard.
	verifier, err := o.sig.Verifier(nil, KeySetClient(o.timeout, o.allowPrivate))
	if err != nil {
		return summary.Summary{}, cmderr.UsageStop(err)
	}
	var checkers sync.Pool // of *pipeline.SignatureChecker, when verifying
	if verifier != nil {
		sigs := &pipeline.Signatures{Verifier: verifier, Require: o.sig.Signatures == "require"}
		checkers.New = func() any { return pipeline.NewSignatureChecker(sigs) }
	}

	// Records are written in the list's order, so one slow host holds
	// back the records of the URLs after it. The window of URLs read past
	// it is wide (a URL that times out after 10 s does not stall a crawl),
	// and bounded twice: in URLs, and in bytes of records waiting to be
	// written. Within the window, the URLs start as their hosts have room
	// (hostScheduler): a URL asks its host one request at a time, so none
	// of the -j fetches waits on a busy host's turn while URLs of other
	// hosts wait behind it (TestPerHost_OtherHostsGoOn).
	sched := newHostScheduler(o.jobs, o.perHost, max(1024, 16*o.jobs), maxPending, func(r result) int64 { return int64(len(r.out)) })
	// Once no record can be written (the reader of a pipe has gone, a
	// disk is full), nothing more is asked: the URLs under way end at
	// once, and no others start.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		defer sched.close()
		for ctx.Err() == nil {
			u, ok := src.next()
			if !ok {
				return
			}
			sched.submit(hostKey(u), func() result {
				rd := renderers.Get().(*renderer)
				defer renderers.Put(rd)
				var sig *pipeline.SignatureChecker
				if checkers.New != nil {
					sig = checkers.Get().(*pipeline.SignatureChecker)
					defer checkers.Put(sig)
				}
				return fetchOne(ctx, f, pool, sig, rd, nil, u)
			})
		}
	}()

	total := summary.Summary{Shards: 1}
	var probeErrors int64
	sink := recordSink{out: stdout, con: con, stop: stop}
	sched.each(func(res result) {
		if !sink.write(res.out) {
			return // stopped: neither written nor counted
		}
		total.Add(&res.stats)
		probeErrors += res.probeErrors
	})
	listErr := src.err != nil || src.long > 0
	if src.err != nil {
		con.Errorf("--urls %s: %v", o.urlsFile, src.err)
	}
	total.Shards = 1
	total.Seconds = time.Since(start).Seconds()
	total.Finish()
	con.Printf("%s", total.Human())

	// A URL that could not be read is a record like any other; only a
	// run that read none at all failed as a whole.
	if total.Inputs > 0 && total.InputErrors == total.Inputs || sink.errored || listErr {
		return total, cmderr.ErrIOReported
	}
	return total, cmderr.Verdict(o.failOn, total.Invalid+probeErrors, total.Warnings)
}

// recordSink writes a run's records to out until one cannot be written;
// then it stops the run, since no record after it can be, and says so
// unless the reader of a pipe has only gone.
type recordSink struct {
	out     io.Writer
	con     *console.Console
	stop    func()
	failed  bool // a write failed: nothing more is written
	errored bool // ... for another reason than a reader gone
}

// write writes rec, and reports whether it was written (an empty rec is,
// until a write has failed).
func (s *recordSink) write(rec []byte) bool {
	if s.failed {
		return false
	}
	if len(rec) == 0 {
		return true
	}
	if _, err := s.out.Write(rec); err != nil {
		s.failed = true
		s.stop()
		if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, io.ErrClosedPipe) {
			s.con.Errorf("writing the records: %v", err)
			s.errored = true
		}
		return false
	}
	return true
}

// ndjsonAdvice is what a body of cards one per line is told to do.
const ndjsonAdvice = "serve one card as one JSON document"

// fetchOne discovers, judges and renders the card of one URL, with rd and,
// when not nil, text as well (the verdict borrows a pooled validator's
// Result, so every rendering happens here). sig, when not nil, verifies
// the card's signatures, binding them to the origin it was fetched from.
func fetchOne(ctx context.Context, f *fetcher, pool *fastvalidate.Pool, sig *pipeline.SignatureChecker, rd, text *renderer, raw string) result {
	res := result{stats: summary.Summary{Counts: summary.Counts{Rules: map[string]int64{}, Profiles: map[string]int64{}}, Inputs: 1}}
	ctx, cancel := f.withinMaxTime(ctx)
	defer cancel()
	fd, fail := f.discover(ctx, raw)
	if fail != nil {
		// The URL and the detail as they are: every format's encoder
		// shows their hidden characters and controls in its own way, and
		// escaping them here as well wrote an IDN host's letters as
		// \uXXXX text in JSON, naming a URL no one listed.
		rec := record{requested: raw, vd: report.Verdict{Input: redactPassword(raw), Line: 1, NoCard: true, Findings: []fastvalidate.Finding{
			fastvalidate.NewFinding(fail.rule, fastvalidate.SeverityError, "", fail.detail),
		}}}
		res.out = rd.append(nil, &rec)
		if text != nil {
			res.text = text.append(nil, &rec)
		}
		res.fail = fail
		res.stats.InputErrors = 1
		res.stats.FetchFailures = map[string]int64{fail.rule.String(): 1}
		return res
	}
	rec := record{requested: raw, card: fd.body}
	v := pool.Get()
	defer pool.Put(v)
	// Locate the card as the CLI does in a .json file: at its first
	// non-blank byte. White space before it changes no verdict.
	card, line, col, first := report.Start(fd.body)
	rec.vd = report.FromResult(fd.url.Redacted(), line, col, first, card, v.Validate(card))
	// The serving rules' findings follow the profile's, in a slice of
	// their own: the profile's belong to the validator.
	extra := httpChecks(fd, fd.body, rec.vd.Profile)
	rec.vd.Findings = slices.Concat(rec.vd.Findings, extra)
	for i := range rec.vd.Findings {
		// The body is the server's, and fetch has no --input to read it
		// with: say what the server should send instead.
		rec.vd.Findings[i] = rec.vd.Findings[i].AdviseNDJSON(ndjsonAdvice)
	}
	for i := range extra {
		if extra[i].Severity == fastvalidate.SeverityError {
			rec.vd.Valid = false
		}
	}
	if sig != nil {
		// The URL the card came from, after redirects: its origin served
		// the card, so its key must be allowed to sign for it.
		out := sig.Check(&rec.vd, card, fd.url.String())
		res.stats.Signatures = signatureSummary(&out)
	}
	res.out = rd.append(nil, &rec)
	if text != nil {
		res.text = text.append(nil, &rec)
	}
	if f.prober != nil {
		probeFound(ctx, f.prober, &rec, rd.cards, &res)
	}

	st := &res.stats
	st.Records = 1
	if rec.vd.Valid {
		st.Valid = 1
	} else {
		st.Invalid = 1
	}
	rec.vd.CountRules(func(code fastvalidate.Code, sev fastvalidate.Severity, n int) {
		st.Rules[code.String()] += int64(n)
		if sev == fastvalidate.SeverityError {
			st.Errors += int64(n)
		} else {
			st.Warnings += int64(n)
		}
	})
	name := rec.vd.Profile
	if name == "" {
		name = "none"
	}
	st.Profiles[name]++
	st.BytesRead, st.BytesDecompressed = fd.size, fd.size
	return res
}

// hostKey is the host (name and port) a URL's fetch starts at, as the
// per-host limit counts them; "" for a URL that fails before any request.
func hostKey(raw string) string {
	cands, err := candidates(raw)
	if err != nil || len(cands) == 0 {
		return ""
	}
	return strings.ToLower(canonicalAddr(cands[0]))
}

// redactPassword writes the password of raw's userinfo as xxxxx, as
// url.URL.Redacted does for the URL of a card found; by hand, since a URL
// that yields no card may be one that does not parse.
func redactPassword(raw string) string {
	scheme := strings.Index(raw, "://")
	start := scheme + len("://")
	if scheme < 0 {
		start = 0 // taken as https://raw
	}
	authority := raw[start:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return raw
	}
	colon := strings.IndexByte(authority[:at], ':')
	if colon < 0 {
		return raw
	}
	return raw[:start+colon+1] + "xxxxx" + raw[start+at:]
}

// printable escapes what the URL list or a server put in a message that
// a terminal would act on: control characters and bytes past ASCII. It is
// for messages written as they are (stderr, an error); records go through
// their format's encoder, which does this its own way.
func printable(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			q := strconv.QuoteToASCII(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// compactJSON returns card on one line if it is valid JSON in valid UTF-8.
func compactJSON(card []byte) ([]byte, bool) {
	if !utf8.Valid(card) {
		return nil, false
	}
	var buf bytes.Buffer
	if json.Compact(&buf, card) != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// signatureSummary is one card's signature counts, as the summary adds
// them up.
func signatureSummary(o *pipeline.SignatureOutcomes) *summary.Signatures {
	s := &summary.Signatures{Findings: o.Findings}
	if o.Signed {
		s.Signed = 1
	}
	if o.Verified {
		s.Verified = 1
	}
	o.Each(func(outcome string, n int64) {
		if s.Outcomes == nil {
			s.Outcomes = map[string]int64{}
		}
		s.Outcomes[outcome] += n
	})
	return s
}

// manners are the flags that say how fetch and probe ask a server, which
// both declare and check alike.
type manners struct {
	perHost        int
	timeout        time.Duration
	connectTimeout time.Duration
	retries        int
	maxRetryWait   time.Duration
	maxTime        time.Duration
	userAgent      string
	maxRecord      cmdflag.Size
}

// check refuses values no request could be made with.
func (m *manners) check() error {
	switch {
	case m.perHost < 1 || m.perHost > 1024:
		return fmt.Errorf("--per-host %d: want 1 to 1024 requests at a time", m.perHost)
	case m.timeout <= 0:
		return fmt.Errorf("--timeout %v: want a positive duration", m.timeout)
	case m.connectTimeout <= 0:
		return fmt.Errorf("--connect-timeout %v: want a positive duration", m.connectTimeout)
	case m.retries < 0 || m.retries > 10:
		return fmt.Errorf("--retries %d: want 0 to 10", m.retries)
	case m.maxRetryWait < 0:
		return fmt.Errorf("--max-retry-wait %v: want a duration of 0 or more", m.maxRetryWait)
	case m.maxTime <= 0:
		return fmt.Errorf("--max-time %v: want a positive duration", m.maxTime)
	case strings.ContainsAny(m.userAgent, "\r\n") || strings.TrimSpace(m.userAgent) == "":
		return errors.New("--user-agent must be one non-blank line")
	case m.maxRecord < 1:
		return errors.New("--max-record must be at least 1 byte")
	}
	return nil
}
