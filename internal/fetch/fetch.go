// Package fetch implements `cardscan fetch`: discovery of agent cards over
// HTTP as the specs describe it, and their validation.
//
// For each base URL it GETs /.well-known/agentcard (the AgentCard draft),
// then /.well-known/agent-card.json and /.well-known/agent.json (A2A), and
// judges the first card found with the auto profile, together with how it
// was served: its Content-Type, a Cache-Control header, and the draft's
// section 8.5 rule that a card's endpoints use the scheme it was fetched
// over. Fetches are bounded by a timeout, a body cap and at most three
// redirects, never from https to http.
package fetch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/summary"
)

const defaultMaxRecord = 2 << 20

type options struct {
	urls      []string
	urlsFile  string
	jobs      int
	profile   string
	format    string
	all       bool
	failOn    string
	color     string
	timeout   time.Duration
	maxRecord cmdflag.Size
	// transport replaces the HTTP transport, for tests.
	transport http.RoundTripper
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

flags:
`

const usageTail = `
exit status: 0 every card passed, 1 a card failed, 2 usage error,
3 a URL could not be fetched or served no card.
`

// usage is the text of --help.
func usage() string { return usageHead + newFlagSet(&options{}).Help() + usageTail }

// newFlagSet declares fetch's flags, to be parsed into o.
func newFlagSet(o *options) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.urlsFile, "--urls FILE", "", "fetch every URL listed in FILE, one per line ('-' for\n"+
		"standard input; blank lines and # comments skipped)")
	fs.Int(&o.jobs, "-j, --jobs N", 8, "fetches at a time")
	fs.String(&o.profile, "--profile NAME", "auto", "rule set")
	// The default depends on --urls, so the help says it.
	fs.String(&o.format, "--format FORMAT", "", "text, jsonl, github, or cards: a JSON line for every\n"+
		"card found, with its verdict and the card itself\n"+
		"(default text; cards with --urls)")
	fs.Bool(&o.all, "--all", "jsonl: a verdict for every card; text: an ok line per valid card")
	fs.String(&o.color, "--color WHEN", "auto", "auto, always or never")
	fs.String(&o.failOn, "--fail-on LEVEL", "error", "error, warning or never: what makes the exit status 1")
	fs.Duration(&o.timeout, "--timeout D", 10*time.Second, "time limit for each request, redirects included")
	o.maxRecord = defaultMaxRecord
	fs.Var(&o.maxRecord, "--max-record SIZE", "largest card read, e.g. 2MiB")
	return &fs
}

// Run is `cardscan fetch ARGS`.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, nil)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, transport http.RoundTripper) int {
	con := console.New(stderr)
	o, err := parseArgs(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage())
			return console.ExitOK
		}
		return con.UsageError("cardscan fetch", err)
	}
	o.transport = transport
	urls := o.urls
	if o.urlsFile != "" {
		listed, err := readURLList(o.urlsFile, stdin)
		if err != nil {
			con.Errorf("--urls %s: %s", o.urlsFile, err)
			return console.ExitIO
		}
		urls = append(urls, listed...)
	}
	style := report.Plain
	if o.format == "text" && cmdflag.WantColor(o.color, stdout) {
		style = report.Color
	}
	return fetchAll(context.Background(), o, urls, stdout, con, style)
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
		if o.urlsFile != "" {
			o.format = "cards"
		}
	}
	switch {
	case len(o.urls) == 0 && o.urlsFile == "":
		return nil, errors.New("no URL to fetch")
	case o.jobs < 1 || o.jobs > 1024:
		return nil, fmt.Errorf("-j %d: want 1 to 1024 fetches at a time", o.jobs)
	case !slices.Contains([]string{"text", "jsonl", "github", "cards"}, o.format):
		return nil, fmt.Errorf("--format %q: want text, jsonl, github or cards", o.format)
	case !slices.Contains([]string{"error", "warning", "never"}, o.failOn):
		return nil, fmt.Errorf("--fail-on %q: want error, warning or never", o.failOn)
	case !slices.Contains([]string{"auto", "always", "never"}, o.color):
		return nil, fmt.Errorf("--color %q: want auto, always or never", o.color)
	case o.timeout <= 0:
		return nil, fmt.Errorf("--timeout %v: want a positive duration", o.timeout)
	case o.maxRecord < 1:
		return nil, errors.New("--max-record must be at least 1 byte")
	}
	if err := cmdflag.CheckProfile(o.profile); err != nil {
		return nil, err
	}
	return o, nil
}

// readURLList reads one URL per line, skipping blank lines and comments.
func readURLList(path string, stdin io.Reader) ([]string, error) {
	var r io.Reader = stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, err
		}
		defer f.Close()
		r = f
	}
	var urls []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if s := strings.TrimSpace(line); s != "" && !strings.HasPrefix(s, "#") {
			urls = append(urls, s)
		}
		if err == io.EOF {
			return urls, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// result is what one URL came to, rendered.
type result struct {
	out     []byte
	text    []byte // rendered by fetchOne's second renderer, when given one
	failure string // why no card was judged, or ""
	stats   summary.Summary
}

// fetchAll fetches the URLs jobs at a time and writes the results in the
// order of the URLs.
func fetchAll(ctx context.Context, o *options, urls []string, stdout io.Writer, con *console.Console, style report.Style) int {
	start := time.Now()
	f := newFetcher(o.timeout, int64(o.maxRecord), o.transport)
	pool, err := fastvalidate.NewPool(o.profile)
	if err != nil {
		con.Errorf("%v", err)
		return console.ExitUsage
	}
	renderers := sync.Pool{New: func() any { return &renderer{format: o.format, all: o.all, style: style} }}

	// queue holds a channel per URL in order; its capacity bounds the
	// results held while an earlier URL is still being fetched.
	queue := make(chan chan result, o.jobs)
	go func() {
		defer close(queue)
		sem := make(chan struct{}, o.jobs)
		for _, u := range urls {
			done := make(chan result, 1)
			queue <- done
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				rd := renderers.Get().(*renderer)
				done <- fetchOne(ctx, f, pool, rd, nil, o.profile, u)
				renderers.Put(rd)
			}()
		}
	}()

	total := summary.Summary{Shards: 1}
	writeFailed, writeErr := false, false
	for done := range queue {
		res := <-done
		if res.failure != "" {
			con.Errorf("%s", res.failure)
		}
		if !writeFailed && len(res.out) > 0 {
			if _, err := stdout.Write(res.out); err != nil {
				writeFailed = true
				if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, io.ErrClosedPipe) {
					con.Errorf("writing stdout: %v", err)
					writeErr = true
				}
			}
		}
		total.Add(&res.stats)
	}
	total.Shards = 1
	total.Seconds = time.Since(start).Seconds()
	total.Finish()
	con.Printf("%s", total.Human())

	status := console.VerdictStatus(o.failOn, total.Invalid, total.Warnings)
	if total.InputErrors > 0 || writeErr {
		status = console.ExitIO
	}
	return status
}

// fetchOne discovers, judges and renders the card of one URL, with rd and,
// when not nil, text as well (the verdict borrows a pooled validator's
// Result, so every rendering happens here).
func fetchOne(ctx context.Context, f *fetcher, pool *fastvalidate.Pool, rd, text *renderer, profile, raw string) result {
	res := result{stats: summary.Summary{Inputs: 1, Rules: map[string]int64{}, Profiles: map[string]int64{}}}
	fd, err := f.discover(ctx, raw)
	if err != nil {
		res.failure = err.Error()
		res.stats.InputErrors = 1
		return res
	}
	rec := record{requested: raw, card: fd.body}
	v := pool.Get()
	defer pool.Put(v)
	input := fd.url.Redacted()
	if fd.tooLarge {
		rec.vd = report.TooLarge(input, 1, 0)
		if profile != "auto" {
			rec.vd.Profile = profile
		}
	} else {
		// Locate the card as the CLI does in a .json file: at its first
		// non-blank byte.
		first := 0
		for first < len(fd.body) && strings.IndexByte(" \t\r\n", fd.body[first]) >= 0 {
			first++
		}
		line := 1 + bytes.Count(fd.body[:first], []byte("\n"))
		rec.vd = report.FromResult(input, line, int64(first), v.Validate(fd.body))
	}
	// The serving rules' findings follow the profile's, in a slice of
	// their own: the profile's belong to the validator.
	extra := httpChecks(fd, fd.body)
	rec.vd.Findings = slices.Concat(rec.vd.Findings, extra)
	for i := range extra {
		if extra[i].Severity == fastvalidate.SeverityError {
			rec.vd.Valid = false
		}
	}
	res.out = rd.append(nil, &rec)
	if text != nil {
		res.text = text.append(nil, &rec)
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
