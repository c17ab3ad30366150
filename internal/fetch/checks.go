package fetch

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
)

// httpChecks applies the rules about how a card is served, which the
// card's bytes alone cannot show, to a card judged by profile. Its
// findings are reported beside the profile's, in the same records; their
// rules are in the one rule table, so --list-rules lists them too.
func httpChecks(fd *found, card []byte, profile string) []fastvalidate.Finding {
	var out []fastvalidate.Finding
	ct := fd.header.Get("Content-Type")
	mt := ct
	if i := strings.IndexByte(mt, ';'); i >= 0 {
		mt = mt[:i]
	}
	switch mt = strings.ToLower(strings.TrimSpace(mt)); mt {
	case "application/agentcard+json", "application/json":
	case "":
		out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPContentType, fastvalidate.SeverityWarning, "",
			"served without a Content-Type; the draft's media type is application/agentcard+json (section 3)"))
	default:
		out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPContentType, fastvalidate.SeverityWarning, "",
			"served as "+quoteHeader(ct)+"; the draft's media type is application/agentcard+json, and application/json is accepted (section 3)"))
	}
	if fd.header.Get("Cache-Control") == "" {
		out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPCacheControl, fastvalidate.SeverityWarning, "",
			"served without a Cache-Control header; the draft recommends max-age=3600 (section 4)"))
	}
	fetched := fd.url.Scheme
	switch {
	case strings.HasPrefix(profile, "agentcard"):
		// Section 8.5 of the AgentCard draft, which is where the rule
		// comes from, binds AgentCards only.
		for _, ep := range endpoints(card) {
			if ep.scheme != fetched {
				out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPEndpointScheme, fastvalidate.SeverityError, ep.path,
					"the endpoint's scheme "+ep.scheme+" differs from the scheme the card was fetched over, "+fetched+" (section 8.5)"))
			}
		}
	case fetched == "http" && (profile == "a2a" || strings.HasPrefix(profile, "a2a/") || profile == "ma2d"):
		// Neither A2A nor MA2D says how a card must be fetched; a card
		// over plain http could have been changed on the way, whatever
		// its endpoints say.
		out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPInsecureFetch, fastvalidate.SeverityWarning, "",
			"fetched over plain http, where anyone on the path could have changed it; serve the card over https"))
	case fd.plainHop != nil && (profile == "a2a" || strings.HasPrefix(profile, "a2a/") || profile == "ma2d"):
		// The card came over https, but where from was said over http:
		// whoever could change the redirect chose the card's host.
		out = append(out, fastvalidate.NewFinding(fastvalidate.CodeHTTPInsecureFetch, fastvalidate.SeverityWarning, "",
			"reached through a redirect from "+fd.plainHop.Redacted()+", over plain http, where anyone on the path could have sent it to another host; list the https URL"))
	}
	return out
}

// quoteHeader quotes a header value for a message, in printable ASCII and
// cut short: it comes from the server and ends up on a terminal.
func quoteHeader(v string) string {
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return strconv.QuoteToASCII(v)
}

type endpoint struct {
	path   string // JSON Pointer to the URL in the card
	scheme string // "http" or "https"
}

// endpoints lists the card's web endpoint URLs, in every dialect's place
// for them: the draft's endpoint.url, A2A's url, supportedInterfaces[].url
// and additionalInterfaces[].url, MA2D's invocation.endpoint. Only http and
// https URLs are compared with the fetch scheme; other schemes (grpc, a
// stdio command) say nothing about the channel the card came over.
//
// It runs once per fetched card, off the validation hot path, where
// decoding into maps, which allocates, costs nothing that matters.
func endpoints(card []byte) []endpoint {
	var doc map[string]json.RawMessage
	if json.Unmarshal(card, &doc) != nil {
		// The embedded-string form: a JSON string holding the card.
		var inner string
		if json.Unmarshal(card, &inner) != nil || json.Unmarshal([]byte(inner), &doc) != nil {
			return nil
		}
	}
	var out []endpoint
	add := func(path string, raw json.RawMessage) {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return
		}
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil {
			return
		}
		if sch := strings.ToLower(u.Scheme); sch == "http" || sch == "https" {
			out = append(out, endpoint{path, sch})
		}
	}
	member := func(raw json.RawMessage, name string) json.RawMessage {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
		}
		return obj[name]
	}
	if ep := doc["endpoint"]; ep != nil {
		if u := member(ep, "url"); u != nil {
			add("/endpoint/url", u)
		}
	}
	if u := doc["url"]; u != nil {
		add("/url", u)
	}
	for _, list := range []string{"supportedInterfaces", "additionalInterfaces"} {
		var items []json.RawMessage
		if json.Unmarshal(doc[list], &items) != nil {
			continue
		}
		for i, it := range items {
			if u := member(it, "url"); u != nil {
				add("/"+list+"/"+strconv.Itoa(i)+"/url", u)
			}
		}
	}
	if inv := doc["invocation"]; inv != nil {
		if u := member(inv, "endpoint"); u != nil {
			add("/invocation/endpoint", u)
		}
	}
	return out
}
