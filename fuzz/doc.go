// Package fuzz holds the differential and fuzz tests of fastvalidate: each
// layer is checked against an independent reference (encoding/json and
// unicode/utf8 for strict JSON, oklog/ulid for agent IDs, the semver.org
// and RFC 3986 grammars as regular expressions, santhosh-tekuri/jsonschema
// for the agentcard-schema profile). It is a module of its own so that
// those references stay out of the main module's dependencies.
package fuzz
