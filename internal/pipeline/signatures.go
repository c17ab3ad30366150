package pipeline

import (
	"bytes"
	"slices"
	"strings"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/report"
)

// Signatures says how a Run verifies the signatures of A2A cards (A2A 1.0
// section 8.4).
type Signatures struct {
	// Verifier checks them. One Verifier serves every worker: it is safe
	// for concurrent use, and sharing it means a trusted jku is fetched
	// once per run, not once per worker.
	Verifier *cardsig.Verifier
	// Require makes a card that no trusted key signed invalid
	// (a2a.signature-missing), and an unknown kid an error rather than a
	// warning.
	Require bool
	// Overrides sets the severity of the a2a.signature-* findings, as
	// fastvalidate.WithSeverity does the validator's; SeverityOff drops
	// them.
	Overrides map[fastvalidate.Code]fastvalidate.Severity
}

// signatureStatuses bounds the cardsig.Status values counted.
const signatureStatuses = int(cardsig.Revoked) + 1

// maxListed is fastvalidate's cap on the findings a Result lists; the
// signature findings a verdict gains are held to it as well, and counted
// past it as the Result counts its own.
const maxListed = 100

// signatureJudge adds the outcome of signature verification to verdicts.
// Each worker has its own, for its scratch buffers.
type signatureJudge struct {
	cfg      *Signatures
	extra    []fastvalidate.Finding
	findings []fastvalidate.Finding
	unlisted []fastvalidate.RuleCount
	thumbs   []string
}

// judge verifies rec's signatures, when it may have any, and adds the
// findings to vd, placed at offsets in rec, their counts to errs and
// warns, and its outcome to s. from is the URL the card was fetched from,
// "" when it was not. It runs only when keys are configured.
func (j *signatureJudge) judge(s *chunkStats, vd *report.Verdict, rec []byte, from string, errs, warns *int) {
	j.extra = j.extra[:0]
	var res *cardsig.Result
	signed := false
	// A card that holds neither the name nor an escape that could spell it
	// has no signatures member: it skips the canonical form and JSON
	// decoding that Verify starts with.
	var at signatureLocator
	if bytes.Contains(rec, []byte("signatures")) || bytes.Contains(rec, []byte(`\u`)) {
		card, _ := cardsig.Unembed(rec)
		at.rec = rec
		r, err := j.cfg.Verifier.VerifyFrom(card, from)
		switch {
		case err == nil:
			res, signed = r, len(r.Signatures) > 0
		case cardsig.HasSignaturesMember(card):
			// Duplicate names, a lone surrogate, a number beyond float64:
			// two readers may see different cards, so nothing in it can
			// verify.
			signed = true
			s.outcomes[cardsig.Invalid]++
			j.add(fastvalidate.CodeA2ASignatureInvalid, fastvalidate.SeverityError, "/signatures", at.signatures(),
				"no signature can verify: "+strings.TrimPrefix(err.Error(), "cardsig: "))
		}
	}
	verified := res != nil && res.Verified()
	if res != nil {
		for _, sig := range res.Signatures {
			if int(sig.Status) < signatureStatuses {
				s.outcomes[sig.Status]++
			}
			if sig.Status == cardsig.Verified {
				continue
			}
			sev := fastvalidate.SeverityError
			if sig.Status == cardsig.KeyUnknown && !j.cfg.Require {
				sev = fastvalidate.SeverityWarning
			}
			// One good signature makes the card verified; the others are
			// still said, but may not veto it: anyone can append an entry
			// to any card (docs/signatures.md).
			if verified {
				sev = fastvalidate.SeverityWarning
			}
			j.add(sig.Status.Code(), sev, sig.Pointer(), at.offset(&sig), sig.Reason)
		}
		vd.SignedBy = res.SignedBy
		vd.Signers = j.signers(res)
	}
	if j.cfg.Require && !verified {
		path, offset, msg := "", 0, "the card is not signed"
		if signed {
			path, offset, msg = "/signatures", at.signatures(), "no signature verifies with a trusted key"
		}
		j.add(fastvalidate.CodeA2ASignatureMissing, fastvalidate.SeverityError, path, offset, msg)
	}

	if signed {
		s.signed++
	}
	if verified {
		s.verified++
	}
	if len(j.extra) == 0 {
		return
	}
	s.signatureFindings += int64(len(j.extra))
	j.findings = append(j.findings[:0], vd.Findings...)
	j.unlisted = append(j.unlisted[:0], vd.Unlisted...)
	for _, f := range j.extra {
		if f.Severity == fastvalidate.SeverityError {
			*errs++
			vd.Valid = false
		} else {
			*warns++
		}
		if len(j.findings) < maxListed {
			j.findings = append(j.findings, f)
		} else {
			j.countUnlisted(f)
		}
	}
	vd.Findings, vd.Unlisted = j.findings, j.unlisted
}

// SignatureChecker verifies the signatures of cards judged one at a time
// (cardscan serve's and fetch's) as a Run's workers verify them, with the
// same findings and outcomes. It is not safe for concurrent use: each
// goroutine has its own, sharing the Signatures (whose Verifier is).
type SignatureChecker struct {
	judge signatureJudge
	st    chunkStats
}

// NewSignatureChecker returns a checker for cfg.
func NewSignatureChecker(cfg *Signatures) *SignatureChecker {
	return &SignatureChecker{judge: signatureJudge{cfg: cfg}}
}

// SignatureOutcomes counts one card's signatures by outcome.
type SignatureOutcomes struct {
	// Signed says the card carries signatures, Verified that one of them
	// verified with a trusted key.
	Signed, Verified bool
	// Findings counts the a2a.signature-* findings the card gained.
	Findings int64
	counts   [signatureStatuses]int64
}

// Each calls f with the name of each outcome counted (as
// cardsig.Status.String writes it, and summary.SignatureOutcomes lists
// it) and its count.
func (o *SignatureOutcomes) Each(f func(outcome string, n int64)) {
	for status, n := range o.counts {
		if n != 0 {
			f(cardsig.Status(status).String(), n)
		}
	}
}

// Check verifies card's signatures and adds their findings to vd, the
// verdict report.FromResult made of card, at offsets in card as the
// validator's are (so vd.Card must be card): vd's Valid, Findings,
// Unlisted, SignedBy and Signers then borrow c's buffers until the next
// Check.
// from is the URL the card was fetched from ("" for none), whose origin
// its signing key must also be allowed for.
func (c *SignatureChecker) Check(vd *report.Verdict, card []byte, from string) SignatureOutcomes {
	c.st.signed, c.st.verified, c.st.signatureFindings = 0, 0, 0
	c.st.outcomes = [signatureStatuses]int64{}
	var errs, warns int
	c.judge.judge(&c.st, vd, card, from, &errs, &warns)
	return SignatureOutcomes{Signed: c.st.signed > 0, Verified: c.st.verified > 0, Findings: c.st.signatureFindings, counts: c.st.outcomes}
}

// signers returns the sorted thumbprints of the keys that verified a
// signature of res, each once, in j's scratch space: a card that is
// verified is listed here, one that is not allocates nothing.
func (j *signatureJudge) signers(res *cardsig.Result) []string {
	j.thumbs = j.thumbs[:0]
	for _, sig := range res.Signatures {
		if sig.Status == cardsig.Verified && !slices.Contains(j.thumbs, sig.Thumbprint) {
			j.thumbs = append(j.thumbs, sig.Thumbprint)
		}
	}
	slices.Sort(j.thumbs)
	if len(j.thumbs) == 0 {
		return nil
	}
	return j.thumbs
}

// add adds a finding at path, which starts offset bytes into the record,
// as the validator's findings are placed.
func (j *signatureJudge) add(code fastvalidate.Code, sev fastvalidate.Severity, path string, offset int, msg string) {
	if o, ok := j.cfg.Overrides[code]; ok {
		if o == fastvalidate.SeverityOff {
			return
		}
		sev = o
	}
	f := fastvalidate.NewFinding(code, sev, path, msg)
	f.Offset = offset
	j.extra = append(j.extra, f)
}

func (j *signatureJudge) countUnlisted(f fastvalidate.Finding) {
	for i := range j.unlisted {
		if u := &j.unlisted[i]; u.Code == f.Code && u.Severity == f.Severity {
			u.Count++
			return
		}
	}
	j.unlisted = append(j.unlisted, fastvalidate.RuleCount{Code: f.Code, Severity: f.Severity, Count: 1})
}

// signatureLocator places signature findings in a record as the
// validator places its own: at offsets in the record as given, so that a
// card embedded as a JSON string has them in the string's text. It reads
// the card only when a finding is placed, so that a card whose
// signatures verify costs nothing more.
type signatureLocator struct {
	rec    []byte // nil: the record cannot hold signatures
	places *cardsig.Locator
}

// signatures is the offset of the card's signatures member.
func (l *signatureLocator) signatures() int {
	if l.rec == nil {
		return 0
	}
	return l.locator().Signatures()
}

// offset is the offset of what sig is about: its entry, or the member of
// it at fault.
func (l *signatureLocator) offset(sig *cardsig.Signature) int {
	return l.locator().Offset(sig)
}

func (l *signatureLocator) locator() *cardsig.Locator {
	if l.places == nil {
		l.places = cardsig.NewTextLocator(l.rec)
	}
	return l.places
}
