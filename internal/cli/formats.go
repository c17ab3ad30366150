package cli

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
)

// maxFormatFiles bounds the --format FORMAT=FILE outputs of a run, each of
// which renders every verdict once more.
const maxFormatFiles = 16

// formatFile is a --format FORMAT=FILE output; checkFormats parses
// format.
type formatFile struct {
	format string
	path   string
	parsed report.Format
}

// formatFlag is --format: FORMAT for stdout, at most once, or FORMAT=FILE
// for a file, as often as wanted (as Spectral's --format and --output).
type formatFlag struct{ o *options }

func (f formatFlag) String() string {
	if f.o == nil {
		return ""
	}
	return f.o.format
}

func (f formatFlag) Set(v string) error {
	name, path, toFile := strings.Cut(v, "=")
	if toFile && path != "-" {
		f.o.formatFiles = append(f.o.formatFiles, formatFile{format: name, path: path})
		return nil
	}
	if f.o.formatGiven {
		return errors.New("only one format can go to stdout; write the others to files (--format FORMAT=FILE)")
	}
	f.o.format, f.o.formatGiven = name, true
	return nil
}

// checkFormats checks --format's values, and parses them.
func checkFormats(o *options) error {
	var err error
	if o.parsedFormat, err = report.ParseFormat(o.format); err != nil {
		return usagef("--format %s", err)
	}
	if len(o.formatFiles) > maxFormatFiles {
		return usagef("--format: %d files, at most %d", len(o.formatFiles), maxFormatFiles)
	}
	for i := range o.formatFiles {
		ff := &o.formatFiles[i]
		if ff.parsed, err = report.ParseFormat(ff.format); err != nil {
			return usagef("--format %q: %s", ff.format+"="+ff.path, err.(*report.FormatError).Want())
		}
		if ff.path == "" {
			return usagef("--format %s=: want a file name after '='", ff.format)
		}
	}
	if o.listRules {
		if o.parsedFormat != report.FormatText && o.parsedFormat != report.FormatJSONL || len(o.formatFiles) > 0 {
			f := o.format
			if len(o.formatFiles) > 0 {
				f = o.formatFiles[0].format + "=" + o.formatFiles[0].path
			}
			return usagef("--list-rules: --format %q: want text or jsonl, to stdout", f)
		}
	}
	if o.crossCard && (len(o.formatFiles) > 0 || !slices.Contains(crossCardFormats, o.parsedFormat)) {
		return usagef("--cross-card writes its findings to stdout in %s only", report.Choice(crossCardFormats))
	}
	return nil
}

// crossCardFormats are the formats with a rendering of findings across
// records.
var crossCardFormats = []report.Format{report.FormatText, report.FormatJSONL, report.FormatGitHub, report.FormatSARIF}

// outputRun is a run's writers of verdicts: stdout's and the --format
// FORMAT=FILE outputs'.
type outputRun struct {
	stdout report.VerdictWriter
	files  []fileOutput
}

// fileOutput is a --format FORMAT=FILE output.
type fileOutput struct {
	name string // --format FORMAT=FILE, as given
	w    report.VerdictWriter
	file *pendingFile
}

// openFormatFiles creates the --format FORMAT=FILE outputs, before the
// first record is read, writes their heads, and adds them to cfg.Also. On
// an error, those created are discarded.
func (r *outputRun) openFormatFiles(o *options, cfg *pipeline.Config) error {
	for _, ff := range o.formatFiles {
		f, err := createPending(ff.path)
		if err == nil {
			name := "--format " + ff.format + "=" + ff.path
			w := ff.parsed.Writer(f, report.WriterOptions{All: o.all})
			if err = w.Head(); err == nil {
				r.files = append(r.files, fileOutput{name, w, f})
				cfg.Also = append(cfg.Also, pipeline.Output{W: w, Name: name})
				continue
			}
			f.discard()
		}
		r.discard()
		return errors.New("--format " + ff.format + "=" + ff.path + ": " + describe(err))
	}
	return nil
}

// discard drops the --format FORMAT=FILE outputs that were not finished.
func (r *outputRun) discard() {
	for _, f := range r.files {
		f.file.discard()
	}
}

// note passes the message of an input that could not be read to the
// writers whose documents list them.
func (r *outputRun) note(msg string) {
	if r.stdout != nil {
		r.stdout.Note(msg)
	}
	for _, f := range r.files {
		f.w.Note(msg)
	}
}

// finish writes the tails of stdout's document and the --format
// FORMAT=FILE outputs', puts the files in place, and reports whether one
// could not be written (said on the console).
func (r *outputRun) finish(end *report.RunEnd, con *console.Console) (failed bool) {
	if r.stdout != nil {
		if err := r.stdout.Tail(end); err != nil && !isClosedPipe(err) {
			con.Errorf("writing stdout: %s", describe(err))
			failed = true
		}
	}
	writers := []report.VerdictWriter{r.stdout}
	for _, f := range r.files {
		err := f.w.Tail(end)
		if err != nil {
			f.file.discard()
		} else {
			err = f.file.commit(nil)
		}
		if err != nil {
			con.Errorf("%s: %s", f.name, describe(err))
			failed = true
		}
		writers = append(writers, f.w)
	}
	for _, w := range writers {
		if w == nil {
			continue
		}
		if msg := report.Warning(w); msg != "" {
			con.Printf("warning: %s", msg)
		}
	}
	return failed
}

// describesRules reports whether an output's tail describes the rules
// that fired (report.RunEnd.Rules): SARIF's does, and no other format's.
func (r *outputRun) describesRules() bool {
	if r.stdout != nil && r.stdout.Format() == report.FormatSARIF {
		return true
	}
	for _, f := range r.files {
		if f.w.Format() == report.FormatSARIF {
			return true
		}
	}
	return false
}

// warningsOver says, for the summary line, that the run's warnings are
// more than --max-warnings allows, or returns "".
func warningsOver(o *options, st *pipeline.Stats) string {
	if o.maxWarnings < 0 || st.Warnings <= o.maxWarnings {
		return ""
	}
	noun := " warnings"
	if st.Warnings == 1 {
		noun = " warning"
	}
	return "; " + strconv.FormatInt(st.Warnings, 10) + noun + ", more than --max-warnings " + strconv.FormatInt(o.maxWarnings, 10)
}
