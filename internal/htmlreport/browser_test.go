package htmlreport

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds a Chromium to drive, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageErrors gathers what a page reports as going wrong: console.error
// and failed console.assert calls, uncaught exceptions, error entries of
// the browser log (a resource that failed to load, a blocked request),
// and every request for something other than the page's own file.
type pageErrors struct {
	mu   sync.Mutex
	page string
	errs []string
}

func (p *pageErrors) listen(ev any) {
	var msg string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			msg = fmt.Sprintf("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		msg = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			msg = fmt.Sprintf("log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		if e.Request.URL != p.current() {
			msg = "request: " + e.Request.URL
		}
	}
	if msg != "" {
		p.mu.Lock()
		p.errs = append(p.errs, msg)
		p.mu.Unlock()
	}
}

func (p *pageErrors) current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.page
}

// take returns the errors gathered since the last call, and starts
// gathering those of url.
func (p *pageErrors) take(url string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	errs := p.errs
	p.errs, p.page = nil, url
	return errs
}

type box struct {
	Label         string
	Width, Height float64
}

// chartBoxes measures every chart's SVG element as laid out.
const chartBoxes = `Array.from(document.querySelectorAll('svg.chart')).map(e => {
	const r = e.getBoundingClientRect();
	return {label: e.getAttribute('aria-label'), width: r.width, height: r.height};
})`

// TestRenderedByChromium loads the report of the fixture in headless
// Chromium at 1280 px: no console error, no request, every chart laid out
// with a size, nothing wider than the window; a PNG of the whole page at
// 1280 px; then as printed on A4, every chart within the page's width.
func TestRenderedByChromium(t *testing.T) {
	exe := chromium()
	if exe == "" {
		t.Skip("chromium is not installed (Debian package chromium; make debian-packages installs it): the rendering test is skipped")
	}
	dir := t.TempDir()
	s, d := fixture(t)
	report := filepath.Join(dir, "report.html")
	if err := os.WriteFile(report, []byte(render(t, s, d)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A page that does report an error, to show that errors are seen.
	faulty := filepath.Join(dir, "faulty.html")
	if err := os.WriteFile(faulty, []byte(`<!DOCTYPE html><title>t</title><script>console.error("seen")</script>`), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, pe := startChromium(t, exe, dir)

	if errs := load(t, ctx, pe, faulty); len(errs) == 0 {
		t.Fatal("a page that calls console.error showed no error: the check below could not fail")
	}

	url := "file://" + report
	pe.take(url)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	boxes, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](chartBoxes))
	if err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	waitQuiet()
	for _, e := range pe.take("") {
		t.Errorf("the report: %s", e)
	}

	const charts = 5 // the profile mix, verdicts, rules, signatures, diff
	if len(boxes) != charts {
		t.Errorf("%d charts laid out, want %d: %+v", len(boxes), charts, boxes)
	}
	for _, b := range boxes {
		if b.Width <= 0 || b.Height <= 0 {
			t.Errorf("chart %q is %.0fx%.0f px", b.Label, b.Width, b.Height)
		}
	}
	if wide > 1280 {
		t.Errorf("the page is %.0f px wide in a 1280 px window", wide)
	}
	img, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if img.Width != 1280 || img.Height < 800 {
		t.Errorf("the screenshot is %dx%d px, want 1280 wide", img.Width, img.Height)
	}
	if path := os.Getenv("CARDSCAN_REPORT_PNG"); path != "" {
		// For a look at the page: CARDSCAN_REPORT_PNG=/tmp/report.png go test -run Chromium.
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Error(err)
		}
	}

	// As printed: A4 is 210 mm wide; less the 12 mm margins, 186 mm,
	// 702.99 px at 96 px per inch.
	const a4Content = 702
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(a4Content, 1000)); err != nil {
		t.Fatal(err)
	}
	printed, err := chromedp.Run(ctx, chromedp.Evaluate[[]box](chartBoxes))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range printed {
		if b.Width <= 0 || b.Height <= 0 || b.Width > a4Content {
			t.Errorf("printed, chart %q is %.0fx%.0f px, want within %d px", b.Label, b.Width, b.Height, a4Content)
		}
	}
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(chromedp.PDFPreferCSSPageSize()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("printing gave %.20q, not a PDF", pdf)
	}
}

// startChromium starts a headless Chromium, gathering its pages' errors,
// and stops it when the test ends.
func startChromium(t *testing.T, exe, dir string) (context.Context, *pageErrors) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Flag("disable-gpu", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	timeout, cancelTimeout := context.WithTimeout(context.Background(), 90*time.Second)
	alloc, cancelAlloc := chromedp.NewExecAllocator(timeout, opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc(); cancelTimeout() })
	pe := new(pageErrors)
	if err := chromedp.Listen(ctx, pe.listen); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx, pe
}

// load opens path in ctx and returns the errors the page reported.
func load(t *testing.T, ctx context.Context, pe *pageErrors, path string) []string {
	t.Helper()
	url := "file://" + path
	pe.take(url)
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	waitQuiet()
	return pe.take("")
}

// hiddenChecks inspects a report as rendered: the text people see (no
// bidi control left in it, its marks there), and whether every marked
// hidden character outside the charts sits in an isolating <bdi>.
const hiddenChecks = `(() => {
	const marks = Array.from(document.querySelectorAll('span.hidden-char'));
	return {
		raw: /[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/.test(document.body.innerText),
		shown: document.body.innerText.includes('<U+202E>'),
		marks: marks.length,
		outside: marks.filter(m => !m.closest('bdi')).map(m => m.parentElement.outerHTML.slice(0, 120)),
		isolated: marks.every(m => getComputedStyle(m.closest('bdi')).unicodeBidi === 'isolate'),
	};
})()`

type hiddenResult struct {
	Raw      bool     `json:"raw"`
	Shown    bool     `json:"shown"`
	Marks    int      `json:"marks"`
	Outside  []string `json:"outside"`
	Isolated bool     `json:"isolated"`
}

// TestHiddenCharactersInChromium: names holding a RIGHT-TO-LEFT OVERRIDE
// and other hidden characters render as visible marks in isolated text,
// and the page's Content-Security-Policy lets its style sheet apply and
// nothing else: a page whose style the policy does not name shows an
// error, so a policy that blocked the report's own style would be seen.
func TestHiddenCharactersInChromium(t *testing.T) {
	exe := chromium()
	if exe == "" {
		t.Skip("chromium is not installed (Debian package chromium; make debian-packages installs it): the rendering test is skipped")
	}
	dir := t.TempDir()
	s, d := hostileFixture()
	report := filepath.Join(dir, "report.html")
	page := render(t, s, d)
	if err := os.WriteFile(report, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(dir, "blocked.html")
	if err := os.WriteFile(blocked, []byte(strings.Replace(page, "<style>", "<style>body{}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, pe := startChromium(t, exe, dir)
	if errs := load(t, ctx, pe, blocked); len(errs) == 0 {
		t.Fatal("a style sheet the policy does not name showed no error: the check below could not fail")
	}
	for _, e := range load(t, ctx, pe, report) {
		t.Errorf("the report: %s", e)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[hiddenResult](hiddenChecks))
	if err != nil {
		t.Fatal(err)
	}
	if got.Raw || !got.Shown || got.Marks == 0 || len(got.Outside) > 0 || !got.Isolated {
		t.Errorf("as rendered: %+v", got)
	}
	bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
	if err != nil {
		t.Fatal(err)
	}
	if bg != "rgb(245, 246, 248)" {
		t.Errorf("the body's background is %s: the style sheet did not apply", bg)
	}
}

// waitQuiet lets events a page caused while loading arrive.
func waitQuiet() { time.Sleep(200 * time.Millisecond) }
