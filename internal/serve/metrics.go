package serve

import (
	"net/http"
	"sync"

	"github.com/cardscan/cardscan/rule"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
	"github.com/cardscan/cardscan/internal/summary"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are what /metrics exports. Each server has its own registry, so
// tests can run servers side by side.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	cards    *prometheus.CounterVec
	findings *prometheus.CounterVec
	rejected prometheus.Counter
	// signatures counts verified signatures by outcome, with a counter
	// made up front for each so that counting neither hashes nor
	// allocates.
	signatures *prometheus.CounterVec
	byOutcome  map[string]prometheus.Counter

	// byRule holds each rule's counter at its default severity, looked up
	// by code so that counting a finding neither hashes nor allocates.
	byRule []prometheus.Counter
	// byProfile caches the invalid and valid card counters of each
	// profile named in a verdict (a *[2]prometheus.Counter by name).
	byProfile sync.Map
}

// latencyBuckets span a small card judged in microseconds to a long
// NDJSON stream.
var latencyBuckets = []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1, 2.5, 5, 10, 30, 60}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cardscan_http_requests_total",
			Help: "HTTP requests answered, by endpoint, method and status code.",
		}, []string{"handler", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cardscan_http_request_duration_seconds",
			Help:    "Time from request to the end of the response, by endpoint.",
			Buckets: latencyBuckets,
		}, []string{"handler", "method", "code"}),
		cards: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cardscan_cards_total",
			Help: "Cards judged, by the profile that judged them and the verdict.",
		}, []string{"profile", "valid"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cardscan_findings_total",
			Help: "Findings reported in verdicts, by rule ID and severity.",
		}, []string{"rule", "severity"}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cardscan_bodies_too_large_total",
			Help: "Single-card request bodies turned away with 413.",
		}),
	}
	m.signatures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cardscan_signatures_total",
		Help: "Card signatures checked (--keys, --trust), by outcome, as --summary counts them.",
	}, []string{"outcome"})
	m.byOutcome = map[string]prometheus.Counter{}
	for _, o := range summary.SignatureOutcomes {
		m.byOutcome[o] = m.signatures.WithLabelValues(o)
	}
	m.reg.MustRegister(m.requests, m.duration, m.cards, m.findings, m.rejected, m.signatures,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, r := range rule.All() {
		for int(r.Code) >= len(m.byRule) {
			m.byRule = append(m.byRule, nil)
		}
		m.byRule[r.Code] = m.findings.WithLabelValues(r.ID, r.Severity.String())
	}
	return m
}

func (m *metrics) instrument(handler string, h http.Handler) http.Handler {
	labels := prometheus.Labels{"handler": handler}
	return promhttp.InstrumentHandlerCounter(m.requests.MustCurryWith(labels),
		promhttp.InstrumentHandlerDuration(m.duration.MustCurryWith(labels), h))
}

// observe counts a verdict's card and findings.
func (m *metrics) observe(vd *report.Verdict) {
	valid := 0
	if vd.Valid {
		valid = 1
	}
	c, ok := m.byProfile.Load(vd.Profile)
	if !ok {
		// As in the CLI's summary, a card no profile judged counts under
		// "none".
		name := vd.Profile
		if name == "" {
			name = "none"
		}
		c, _ = m.byProfile.LoadOrStore(vd.Profile, &[2]prometheus.Counter{m.cards.WithLabelValues(name, "false"), m.cards.WithLabelValues(name, "true")})
	}
	c.(*[2]prometheus.Counter)[valid].Inc()
	vd.CountRules(func(code fastvalidate.Code, sev fastvalidate.Severity, n int) {
		if int(code) < len(m.byRule) && m.byRule[code] != nil && code.Severity() == sev {
			m.byRule[code].Add(float64(n))
			return
		}
		m.findings.WithLabelValues(code.String(), sev.String()).Add(float64(n))
	})
}

// observeSignatures counts one card's signatures by outcome.
func (m *metrics) observeSignatures(o *pipeline.SignatureOutcomes) {
	o.Each(func(outcome string, n int64) {
		c := m.byOutcome[outcome]
		if c == nil {
			c = m.signatures.WithLabelValues(outcome)
		}
		c.Add(float64(n))
	})
}
