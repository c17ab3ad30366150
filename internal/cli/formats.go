package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/report"
)

// formatNames are the values of --format, in the order the help lists them.
var formatNames = []string{"text", "jsonl", "github", "sarif", "junit", "codequality"}

// maxFormatFiles bounds the --format FORMAT=FILE outputs of a run, each of
// which renders every verdict once more.
const maxFormatFiles = 16

// formatFile is a --format FORMAT=FILE output.
type formatFile struct{ format, path string }

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
		f.o.formatFiles = append(f.o.formatFiles, formatFile{name, path})
		return nil
	}
	if f.o.formatGiven {
		return errors.New("only one format can go to stdout; write the others to files (--format FORMAT=FILE)")
	}
	f.o.format, f.o.formatGiven = name, true
	return nil
}

// checkFormats checks --format's values.
func checkFormats(o *options) error {
	want := "want " + strings.Join(formatNames[:len(formatNames)-1], ", ") + " or " + formatNames[len(formatNames)-1]
	if !slices.Contains(formatNames, o.format) {
		return usagef("--format %q: %s", o.format, want)
	}
	if len(o.formatFiles) > maxFormatFiles {
		return usagef("--format: %d files, at most %d", len(o.formatFiles), maxFormatFiles)
	}
	for _, ff := range o.formatFiles {
		if !slices.Contains(formatNames, ff.format) {
			return usagef("--format %q: %s", ff.format+"="+ff.path, want)
		}
		if ff.path == "" {
			return usagef("--format %s=: want a file name after '='", ff.format)
		}
	}
	if o.listRules {
		if o.format != "text" && o.format != "jsonl" || len(o.formatFiles) > 0 {
			f := o.format
			if len(o.formatFiles) > 0 {
				f = o.formatFiles[0].format + "=" + o.formatFiles[0].path
			}
			return usagef("--list-rules: --format %q: want text or jsonl, to stdout", f)
		}
	}
	if o.crossCard && (len(o.formatFiles) > 0 || o.format == "junit" || o.format == "codequality") {
		return usagef("--cross-card writes its findings to stdout in text, jsonl, github or sarif only")
	}
	return nil
}

// pipelineFormat maps a --format name to the pipeline's.
func pipelineFormat(name string) pipeline.Format {
	switch name {
	case "jsonl":
		return pipeline.FormatJSONL
	case "github":
		return pipeline.FormatGitHub
	case "sarif":
		return pipeline.FormatSARIF
	case "junit":
		return pipeline.FormatJUnit
	case "codequality":
		return pipeline.FormatCodeQuality
	}
	return pipeline.FormatText
}

// document is an output in a format whose verdicts need framing: SARIF,
// JUnit and Code Quality. finish writes its end once the run is over.
type document interface {
	finish(st *pipeline.Stats, inputErrors int64, status int, overrides map[string]string) error
}

// startDocument writes the start of a document in format to dst, and
// returns the writer its verdicts go through (over findings, which writes
// to dst), or findings itself and no document for a format that needs no
// framing. It may wrap cfg.Diagnose, to list unreadable inputs.
func startDocument(format string, dst, findings io.Writer, cfg *pipeline.Config) (io.Writer, document, error) {
	switch format {
	case "sarif":
		s, err := startSARIF(dst, findings, cfg)
		if err != nil {
			return nil, nil, err
		}
		return s.w, s, nil
	case "codequality":
		if _, err := io.WriteString(dst, report.CodeQualityHead); err != nil {
			return nil, nil, err
		}
		return &report.ListWriter{W: findings}, codeQualityRun{dst}, nil
	case "junit":
		return startJUnit(dst, cfg)
	}
	return findings, nil, nil
}

type codeQualityRun struct{ dst io.Writer }

func (c codeQualityRun) finish(*pipeline.Stats, int64, int, map[string]string) error {
	_, err := io.WriteString(c.dst, report.CodeQualityTail)
	return err
}

// junitRun is a --format junit output: the test cases are spooled to an
// unlinked temporary file, since the document's head gives their counts,
// and finish writes the head, the test cases and the tail to dst.
type junitRun struct {
	dst     io.Writer
	spool   *os.File
	buf     *bufio.Writer
	w       *report.JUnitWriter
	notes   []string
	dropped int
}

func startJUnit(dst io.Writer, cfg *pipeline.Config) (io.Writer, document, error) {
	f, err := os.CreateTemp("", "cardscan-junit-")
	if err != nil {
		return nil, nil, err
	}
	os.Remove(f.Name())
	j := &junitRun{dst: dst, spool: f, buf: bufio.NewWriterSize(f, 64<<10)}
	j.w = &report.JUnitWriter{W: j.buf}
	diagnose := cfg.Diagnose
	cfg.Diagnose = func(msg string) {
		diagnose(msg)
		if len(j.notes) < maxSARIFNotes {
			j.notes = append(j.notes, msg)
		} else {
			j.dropped++
		}
	}
	return j.w, j, nil
}

func (j *junitRun) finish(st *pipeline.Stats, _ int64, _ int, _ map[string]string) error {
	defer j.spool.Close()
	notes := j.notes
	if j.dropped > 0 {
		notes = append(notes, strconv.Itoa(j.dropped)+" more inputs could not be read")
	}
	if st.Interrupted {
		notes = append(notes, "interrupted: the test cases are those of the cards judged before")
	}
	t := j.w.Totals()
	t.Errors = int64(len(notes))
	t.Tests += t.Errors
	if err := j.buf.Flush(); err != nil {
		return err
	}
	if _, err := j.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := j.dst.Write(report.AppendJUnitHead(nil, "cardscan", t)); err != nil {
		return err
	}
	if _, err := io.Copy(j.dst, j.spool); err != nil {
		return err
	}
	_, err := j.dst.Write(report.AppendJUnitTail(nil, notes))
	return err
}

// fileDocument is an output to a --format FORMAT=FILE file: its document,
// if the format has one, then the file put in place.
type fileDocument struct {
	name string // --format FORMAT=FILE, as given
	doc  document
	file *pendingFile
}

func (f fileDocument) finish(st *pipeline.Stats, inputErrors int64, status int, overrides map[string]string) error {
	if f.doc != nil {
		if err := f.doc.finish(st, inputErrors, status, overrides); err != nil {
			f.file.discard()
			return err
		}
	}
	return f.file.commit(nil)
}

// openFormatFiles creates the --format FORMAT=FILE outputs, before the
// first record is read, as cfg.Also, and returns the documents to finish
// in the order given. On an error, those created are discarded.
func openFormatFiles(o *options, cfg *pipeline.Config) ([]fileDocument, error) {
	var docs []fileDocument
	for _, ff := range o.formatFiles {
		f, err := createPending(ff.path)
		if err == nil {
			var w io.Writer
			var doc document
			if w, doc, err = startDocument(ff.format, f, f, cfg); err == nil {
				name := "--format " + ff.format + "=" + ff.path
				docs = append(docs, fileDocument{name, doc, f})
				cfg.Also = append(cfg.Also, pipeline.Output{Format: pipelineFormat(ff.format), W: w, Name: name})
				continue
			}
			f.discard()
		}
		for _, d := range docs {
			d.file.discard()
		}
		return nil, errors.New("--format " + ff.format + "=" + ff.path + ": " + describe(err))
	}
	return docs, nil
}

// finishDocuments ends stdout's document, if its format has one, and the
// --format FORMAT=FILE outputs, and returns the exit status: 3 when one
// could not be written.
func finishDocuments(doc document, files []fileDocument, st *pipeline.Stats, inputErrors int64, status int, overrides map[string]string, con *console.Console) int {
	final := status
	if doc != nil {
		if err := doc.finish(st, inputErrors, status, overrides); err != nil && !isClosedPipe(err) {
			con.Errorf("writing stdout: %s", describe(err))
			final = console.ExitIO
		}
	}
	docs := []document{doc}
	for _, f := range files {
		if err := f.finish(st, inputErrors, status, overrides); err != nil {
			con.Errorf("%s: %s", f.name, describe(err))
			final = console.ExitIO
		}
		docs = append(docs, f.doc)
	}
	for _, d := range docs {
		if s, ok := d.(*sarifRun); ok {
			if msg := s.overLimit(); msg != "" {
				con.Printf("warning: %s", msg)
			}
		}
	}
	return final
}

// warningsOver says, for the summary line, that the run's warnings are
// more than --max-warnings allows, or returns "".
func warningsOver(o *options, st *pipeline.Stats) string {
	if o.maxWarnings < 0 || st.Warnings <= o.maxWarnings {
		return ""
	}
	return "; " + strconv.FormatInt(st.Warnings, 10) + " warnings, more than --max-warnings " + strconv.FormatInt(o.maxWarnings, 10)
}
