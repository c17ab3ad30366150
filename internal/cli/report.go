package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/htmlreport"
	"github.com/cardscan/cardscan/internal/summary"
)

const reportUsageHead = `usage: cardscan report SUMMARY.json [DIFF.jsonl] -o report.html

Writes one self-contained HTML page (no script, nothing fetched; inline
SVG charts) from a --summary file: the dialect and version mix, the valid
and invalid share per profile, the top rules, the worst inputs, and,
given the JSONL output of cardscan diff, what appeared, broke and was
fixed. '-' reads the summary or the diff from standard input.

exit status: 0 written, 2 usage error, 3 an input could not be read or
the report written.

flags:
`

// maxSummary bounds the summary read: a summary is a few kilobytes, and
// a file this large was given by mistake.
const maxSummary = 64 << 20

func newReportFlagSet(out *string) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(out, "-o, --output FILE", "", "where to write the report (- for standard output);\n"+
		"required. A report that cannot be made leaves FILE as it was")
	return &fs
}

// runReport is `cardscan report ARGS`.
func runReport(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	var out string
	fs := newReportFlagSet(&out)
	operands, err := fs.Parse(args)
	if err == nil {
		switch {
		case len(operands) == 0 || len(operands) > 2:
			err = fmt.Errorf("want a summary file and at most one diff file, got %d files", len(operands))
		case out == "":
			err = errors.New("-o FILE is required (- for standard output)")
		case len(operands) == 2 && operands[0] == "-" && operands[1] == "-":
			err = errors.New("standard input can hold the summary or the diff, not both")
		}
	}
	if err == nil {
		output := clobber.File{Role: "-o", Path: out}
		if out == "-" {
			output.Role = "standard output"
		}
		err = guardFiles(reportInputs(operands), []clobber.File{output}, stdin, stdout)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return writeOut(stdout, reportUsageHead+fs.Help())
		}
		return cmderr.Usage("cardscan report", err)
	}

	names := append([]string(nil), operands...)
	for i := range names {
		if names[i] == "-" {
			names[i] = stdinName
		}
	}
	b, err := readSummaryFile(operands[0], stdin)
	if err != nil {
		return cmderr.IOf("%s: %s", names[0], err)
	}
	s, err := summary.Unmarshal(b)
	if err != nil {
		return cmderr.IOf("%s", notASummary(names[0], err))
	}
	var d *htmlreport.Diff
	if len(operands) == 2 {
		d, err = readDiffFile(operands[1], stdin)
		if err != nil {
			return cmderr.IOf("%s", notADiff(names[1], err))
		}
	}
	var page bytes.Buffer
	if err := htmlreport.Write(&page, s, d); err != nil {
		return cmderr.IOf("rendering the report: %s", err)
	}
	if out == "-" {
		return writeOut(stdout, page.String())
	}
	if err := replaceFile(out, page.Bytes()); err != nil {
		return cmderr.IOf("-o %s: %s", out, describe(err))
	}
	return nil
}

// reportInputs names report's operands for the output guard.
func reportInputs(operands []string) []clobber.File {
	files := []clobber.File{{Role: "the summary", Path: operands[0]}}
	if len(operands) == 2 {
		files = append(files, clobber.File{Role: "the diff", Path: operands[1]})
	}
	return files
}

// notASummary says why the file at path is no summary: at which line
// and column, when decoding failed.
func notASummary(path string, err error) string {
	var de *summary.DecodeError
	if errors.As(err, &de) && de.Newer {
		return fmt.Sprintf("%s:%d:%d: %s: the summary may come from a newer cardscan than this one (%s)", path, de.Line, de.Column, de.Detail(), version())
	}
	if errors.As(err, &de) {
		return fmt.Sprintf("%s:%d:%d: not a cardscan summary: %s%s", path, de.Line, de.Column, de.Detail(), diffFileHint(de))
	}
	return fmt.Sprintf("%s: not a cardscan summary: %s", path, err)
}

// diffFileHint says what a file is when its first unknown member is one
// of cardscan diff's own, which users give in a summary's place.
func diffFileHint(de *summary.DecodeError) string {
	switch de.Pointer {
	case "/diff":
		return " (it is cardscan diff's --summary, which counts changed keys: give validation's --summary)"
	case "/change":
		return " (it is cardscan diff's JSONL: give it to report after the summary)"
	}
	return ""
}

func readSummaryFile(path string, stdin io.Reader) ([]byte, error) {
	r, closer, err := openOperand(path, stdin)
	if err != nil {
		return nil, describeErr(err)
	}
	defer closer()
	b, err := io.ReadAll(io.LimitReader(r, maxSummary+1))
	if err != nil {
		return nil, describeErr(err)
	}
	if len(b) > maxSummary {
		return nil, fmt.Errorf("larger than %d bytes: not a cardscan summary", maxSummary)
	}
	return b, nil
}

func readDiffFile(path string, stdin io.Reader) (*htmlreport.Diff, error) {
	r, closer, err := openOperand(path, stdin)
	if err != nil {
		return nil, describeErr(err)
	}
	defer closer()
	return htmlreport.ReadDiff(r)
}

// notADiff words a diff file's fault, with the line and column right
// after the file's name when it has them.
func notADiff(path string, err error) string {
	var de *summary.DecodeError
	if errors.As(err, &de) {
		return fmt.Sprintf("%s:%d:%d: %s", path, de.Line, de.Column, de.Detail())
	}
	return fmt.Sprintf("%s: %s", path, err)
}

// openOperand opens a command's operand: standard input for "-" when the
// command reads it (stdin not nil), else the file of that name.
func openOperand(path string, stdin io.Reader) (io.Reader, func(), error) {
	if path == "-" && stdin != nil {
		return stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

func describeErr(err error) error { return errors.New(describe(err)) }

// replaceFile writes b to path as --summary is written (createPending):
// through a temporary file in the same directory, renamed over path once
// complete, so that a failed write (a full disk) leaves an earlier file
// whole; through a symbolic link to the file it names; and in place to a
// path that is not a regular file (a FIFO, /dev/stdout).
func replaceFile(path string, b []byte) error {
	f, err := createPending(path)
	if err != nil {
		return err
	}
	return f.commit(b)
}
