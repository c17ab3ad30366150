package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
)

const schemaUsageHead = `usage: cardscan schema PROFILE [-o FILE]
       cardscan schema --list

Writes a self-contained JSON Schema (draft 2020-12, no remote $ref) of
the cards PROFILE judges, for an editor to complete members and flag
type errors with (docs/schema.md). It is written from the tables
cardscan's checks read, and each member's description quotes its
specification and names the rules behind its constraints. A schema is
looser than cardscan: it never rejects a card cardscan accepts, and
misses what only cardscan can see (docs/schema.md lists those rules).

exit status: 0 written, 2 usage error, 3 the schema could not be
written.

flags:
`

func newSchemaFlagSet(out *string, list *bool) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(out, "-o, --output FILE", "-", "where to write the schema (- for standard output); a\n"+
		"schema that cannot be written leaves FILE as it was")
	fs.Bool(list, "--list", "list the profiles a schema can be written for, one a line")
	return &fs
}

// runSchema is `cardscan schema ARGS`.
func runSchema(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	var out string
	var list bool
	fs := newSchemaFlagSet(&out, &list)
	operands, err := fs.Parse(args)
	if err == nil {
		switch {
		case list && len(operands) > 0:
			err = errors.New("--list takes no profile")
		case !list && len(operands) != 1:
			err = fmt.Errorf("want one profile (one of %s), got %d operands", strings.Join(fastvalidate.SchemaProfiles(), ", "), len(operands))
		}
	}
	if err == nil {
		output := clobber.File{Role: "-o", Path: out}
		if out == "-" {
			output.Role = "standard output"
		}
		err = guardFiles(nil, []clobber.File{output}, stdin, stdout)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeOut(stdout, schemaUsageHead+fs.Help())
		}
		return cmderr.Usage("cardscan schema", err)
	}
	if list {
		return writeOut(stdout, strings.Join(fastvalidate.SchemaProfiles(), "\n")+"\n")
	}
	b, err := fastvalidate.JSONSchema(operands[0])
	if err != nil {
		return cmderr.Usage("cardscan schema", fmt.Errorf("no schema for profile %q; known: %s", operands[0], strings.Join(fastvalidate.SchemaProfiles(), ", ")))
	}
	if out == "-" {
		return writeOut(stdout, string(b))
	}
	if err := replaceFile(out, b); err != nil {
		return cmderr.IOf("-o %s: %s", out, describe(err))
	}
	return nil
}
