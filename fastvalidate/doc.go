// Package fastvalidate judges agent cards, one card's bytes at a time,
// exactly as their specifications demand and at about the speed of merely
// parsing them.
//
// # Use
//
// Build a [Validator] once per profile and goroutine, then reuse it:
//
//	v := fastvalidate.MustNew("agentcard")
//	res := v.Validate(card)
//	if !res.Valid() {
//		for _, f := range res.Findings() {
//			fmt.Println(f.Code, f.Path, f.Message())
//		}
//	}
//
// A [Result] and the strings in its findings belong to the Validator and
// are overwritten by its next Validate call. Request handlers that come
// and go take Validators from a [Pool].
//
// # Profiles
//
// A profile is a rule set: "agentcard" (draft-aevum-agentcard-00),
// "agentcard-schema" (the format's JSON Schema v1.0), and the others that
// [Profiles] lists. Every rule has a stable ID ([Code.String]) and a
// default [Severity]; [Rules] lists them all.
//
// # Strict JSON
//
// Every profile first requires exactly one RFC 8259 value with the I-JSON
// restrictions of RFC 7493: valid UTF-8, no escaped lone surrogates, no
// duplicate member names (compared decoded), and nesting no deeper than
// [DefaultMaxDepth]. Anything two JSON parsers could read differently is
// rejected, so a card that passes here means the same downstream.
//
// # Performance
//
// The bytes are read once. A scanner checks the strict grammar while it
// records every value on a flat, reused tape of offsets; the profile's
// checks then walk tokens, never bytes, and decode a string only when a
// rule needs its content. Identifiers are checked by table-driven matchers
// ([IsAgentID], [IsSemVer], [IsCapabilityID], [ParseURI]). A valid card
// costs no allocation once the Validator's buffers have grown; a finding
// is plain data whose message is formatted only when asked for.
//
// A lenient tree parser such as fastjson accepts NaN, control characters,
// invalid UTF-8 and duplicate names, and cannot hand back a string's raw
// bytes once it has decoded it; making it strict would take a second pass
// over every byte. The benchmarks compare the whole validation with
// fastjson's parse alone, in the same run.
//
// # Limits
//
// A card must be shorter than 4 GiB. At most 100 findings are kept per
// card; the error and warning counts stay exact beyond that.
package fastvalidate
