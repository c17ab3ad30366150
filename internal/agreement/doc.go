// Package agreement holds the differential test that runs the same cards
// through every surface that judges them (the CLI in each output format
// and --summary, fastvalidate, cardhttp's middleware, serve's handler, the
// MCP server's tools and the language server) and holds them to one
// verdict, one set of findings and one place for each finding. It has no
// code of its own: see its tests.
package agreement
