package lspserver

import (
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/migrate"
)

// migrateTargets are the releases an A2A card can be migrated to from the
// editor, as cardscan migrate's --to names them, with the words of the
// action's title.
var migrateTargets = []struct{ profile, release string }{
	{migrate.V10, "A2A 1.0"},
	{migrate.V03, "A2A 0.3"},
}

// migrator is cardscan migrate for one target release under a document's
// policy, with the a2a profile that must recognise what it writes.
type migrator struct {
	m      *migrate.Migrator
	detect *fastvalidate.Validator
}

func (d *document) migrator(to string) (*migrator, error) {
	if mg := d.migrators[to]; mg != nil {
		return mg, nil
	}
	m, err := migrate.New(migrate.Options{To: to, Validate: d.opts})
	if err != nil {
		return nil, err
	}
	detect, err := fastvalidate.New("a2a", d.opts...)
	if err != nil {
		return nil, err
	}
	if d.migrators == nil {
		d.migrators = map[string]*migrator{}
	}
	d.migrators[to] = &migrator{m: m, detect: detect}
	return d.migrators[to], nil
}

// migrateActions offers to migrate an A2A card to each release it is not
// in. They concern the whole card, so they are offered wherever the
// cursor is.
func (s *Server) migrateActions(d *document, only []string) []CodeAction {
	if d.policy.Skip || !strings.HasPrefix(d.judged, "a2a/") {
		return nil
	}
	if !d.migrationsDone {
		d.migrations, d.migrationsDone = nil, true
		for _, t := range migrateTargets {
			if t.profile == d.judged {
				continue
			}
			if a, ok := d.migrateAction(t.profile, t.release); ok {
				d.migrations = append(d.migrations, a)
			}
		}
	}
	var actions []CodeAction
	for _, a := range d.migrations {
		if kindWanted(a.Kind, only) {
			actions = append(actions, a)
		}
	}
	return actions
}

// migrateAction migrates the card to release to. It is offered only when
// the migrator changed the card (it refuses a signed one, whose
// signatures the migration would break) and the result is valid and
// recognised as that release: an action must not leave the author a card
// worse than the one they had. Its kind is quickfix when the migration
// makes one of the card's a2a findings go, which it then names, and
// refactor.rewrite otherwise.
func (d *document) migrateAction(to, release string) (CodeAction, bool) {
	mg, err := d.migrator(to)
	if err != nil {
		return CodeAction{}, false
	}
	var rec migrate.Record
	out := mg.m.Migrate(nil, d.text, &rec)
	if rec.Status != migrate.StatusMigrated || !rec.ValidAfter {
		return CodeAction{}, false
	}
	after, judged := validate(mg.detect, out, nil)
	if judged != to || hasError(after) {
		return CodeAction{}, false
	}
	title := "Migrate this card to " + release
	if drops := droppedMembers(rec.Changes); drops != "" {
		title += " (drops " + drops + ")"
	}
	li := newLineIndex(d.text, d.enc)
	action := CodeAction{Title: title, Kind: "refactor.rewrite",
		Edit: WorkspaceEdit{Changes: map[string][]TextEdit{d.uri: lineEdits(li, d.text, out)}}}
	for _, f := range d.findings {
		// Compared by rule alone: a finding the migrated card still has
		// may sit at a new path, since members move.
		if strings.HasPrefix(f.code.String(), "a2a.") && !hasCode(after, f.code) {
			action.Kind = "quickfix"
			action.Diagnostics = append(action.Diagnostics, f.diagnostic(li, d.text))
		}
	}
	return action, true
}

// droppedMembers names what the migration could not carry, as the
// report's dropped changes say, for the action's title: "tenant,
// pkceRequired", at most three and a count of the rest.
func droppedMembers(changes []migrate.Change) string {
	var names []string
	seen := map[string]bool{}
	for _, c := range changes {
		if c.Action != "dropped" || c.From == "" {
			continue
		}
		name := lastSegment(c.From)
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	const shown = 3
	if len(names) > shown {
		return strings.Join(names[:shown], ", ") + " and " + strconv.Itoa(len(names)-shown) + " more"
	}
	return strings.Join(names, ", ")
}

func hasError(fs []finding) bool {
	for _, f := range fs {
		if f.sev == fastvalidate.SeverityError {
			return true
		}
	}
	return false
}

func hasCode(fs []finding, code fastvalidate.Code) bool {
	for _, f := range fs {
		if f.code == code {
			return true
		}
	}
	return false
}

// kindWanted reports whether a client that asked only for the kinds in
// only (none: every kind) wants an action of kind: "refactor" asks for
// "refactor.rewrite" too.
func kindWanted(kind string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}
