// Package codehealth holds checks on the project's own source that keep
// it readable: its test parses every non-test, non-generated Go file of
// the repository and fails naming any function that has grown past the
// limits in docs/development.md. It has no code of its own to import.
package codehealth
