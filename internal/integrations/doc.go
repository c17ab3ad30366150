// Package integrations tests the ways cardscan is run from elsewhere that
// live at the repository's root: the GitHub Action (action.yml and
// .github/action/run.sh) and the pre-commit hook (.pre-commit-hooks.yaml).
// It has no code of its own.
package integrations
