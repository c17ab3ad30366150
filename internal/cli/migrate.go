package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/clobber"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/cmdflag"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/gzipstream"
	"github.com/cardscan/cardscan/internal/mediatype"
	"github.com/cardscan/cardscan/internal/migrate"
	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/cardscan/cardscan/internal/sign"
	"github.com/klauspost/compress/zstd"
)

type migrateOptions struct {
	to, from       string
	keepLegacy     bool
	dropSignatures bool
	key, keyID     string
	write, noBack  bool
	check          bool
	out, report    string
	policy         string
	maxRecord      cmdflag.Size
}

const migrateUsageHead = `usage: cardscan migrate --to a2a/1.0|a2a/0.3 [flags] [PATH ...]

Moves A2A agent cards between releases: 0.2 and 0.3 cards to 1.0, 1.0
cards to 0.3. PATH is a card file (.json, kept as the author laid it
out: only the members that move change), a directory of them, an NDJSON
dump (.ndjson, .jsonl, also zstd or gzip compressed: one migrated card
per line out), or - for standard input (the default). Every migrated
card is judged by the target release; one JSON record per card says
what moved where, under a migrate.* rule, and what could not be carried.

Cards go to standard output (a single card file as laid out, otherwise
one card per line), to -o FILE, or back into their files with --write.
The records go to --report FILE, or to standard output when the cards
do not.

flags:
`

const migrateUsageTail = `
exit status: 0 done, 1 a card was refused or fails the target where its
source passed (with --check: a card would change, or is signed), 2 usage
error, 3 an input could not be read or an output written.
`

func newMigrateFlagSet(o *migrateOptions) *cmdflag.Set {
	var fs cmdflag.Set
	fs.String(&o.to, "--to RELEASE", "", "a2a/1.0 or a2a/0.3: the release to write")
	fs.String(&o.from, "--from RELEASE", "auto", "auto (each card's own) or a2a/0.2, a2a/0.3, a2a/1.0")
	fs.Bool(&o.keepLegacy, "--keep-legacy", "with --to a2a/1.0: keep the 0.x members beside the\n1.0 ones, for readers of either release (a hybrid)")
	fs.Bool(&o.dropSignatures, "--drop-signatures", "drop a signed card's signatures, which the migration\nbreaks (a signed card is refused otherwise)")
	fs.String(&o.key, "--key FILE", "", "sign each migrated card that was signed with this\nprivate JWK, in place of its old signatures")
	fs.String(&o.keyID, "--kid KID", "", "the kid of --key's signatures (default: the JWK's)")
	fs.Bool(&o.write, "--write", "write each changed card back into its file (a file\nthat does not change is not touched)")
	fs.Bool(&o.noBack, "--no-backup", "with --write: keep no FILE.orig copy of the original")
	fs.Bool(&o.check, "--check", "write nothing; exit 1 when a card would change")
	fs.String(&o.out, "-o, --output FILE", "", "write the migrated cards to FILE")
	fs.String(&o.report, "--report FILE", "", "write the JSON records to FILE ('-' for stdout)")
	fs.String(&o.policy, "--policy NAME", "default", "default or production, as for validation").HideDefault()
	o.maxRecord = pipeline.DefaultMaxRecord
	fs.Var(&o.maxRecord, "--max-record SIZE", "longest card read")
	return &fs
}

// migrateRun is one run's outputs and counts.
type migrateRun struct {
	o        *migrateOptions
	con      *console.Console
	cards    io.Writer // nil: no cards written to a stream
	records  *bufio.Writer
	asIs     bool // the one card file goes out as laid out
	oneInput bool // the run reads one input: its card is the stream's only one
	tally    tally
	ioErrors int
	// workers migrate an NDJSON dump's chunks, one per core; solo
	// migrates card files and the odd long line, on the reading
	// goroutine.
	workers []*migrateWorker
	solo    *migrateWorker
}

func runMigrate(args []string, stdin io.Reader, stdout io.Writer, con *console.Console) error {
	o, paths, mopts, err := parseMigrateArgs(args, stdin, stdout)
	if err != nil || o == nil {
		return err
	}
	ws, err := newWorkers(mopts, runtime.GOMAXPROCS(0)+1)
	if err != nil {
		return cmderr.Usage("cardscan migrate", usageError{err.Error()})
	}
	inputs, _, walkErrors := expandPaths(paths, pipeline.FramingAuto, stdin, con, nil)
	if err := sameInputs(inputs, stdin, "each of its cards is migrated twice"); err != nil {
		return cmderr.Usage("cardscan migrate", err)
	}
	r := &migrateRun{o: o, con: con, ioErrors: walkErrors, workers: ws[1:], solo: ws[0]}
	closers, err := r.openOutputs(stdout)
	if err != nil {
		return err
	}
	r.asIs = len(inputs) == 1 && wholeCardName(inputs[0].Path)
	r.oneInput = len(inputs) == 1
	said := map[string]bool{} // the outputs whose write error was said
	for _, in := range inputs {
		if err := r.input(in, stdin); err != nil {
			var ow *outputWriteError
			if errors.As(err, &ow) {
				said[ow.name] = true
				con.Errorf("migrate: %s: %s", in.Name, ow)
			} else {
				con.Errorf("migrate: %s: %s", in.Name, describe(err))
			}
			r.ioErrors++
		}
	}
	for _, c := range closers {
		err := c()
		var ow *outputWriteError
		switch {
		case err == nil || isClosedPipe(err):
		case errors.As(err, &ow):
			if !said[ow.name] {
				con.Errorf("migrate: %s", ow)
			}
			r.ioErrors++
		default:
			con.Errorf("migrate: writing: %s", describe(err))
			r.ioErrors++
		}
	}
	con.Printf("%s", r.summary())
	switch {
	case r.ioErrors > 0:
		return cmderr.ErrIOReported
	case o.check:
		if r.tally.wouldRun {
			return cmderr.ErrFailed
		}
	case r.tally.counts[2]+r.tally.counts[3] > 0: // refused, failed
		return cmderr.ErrFailed
	}
	return nil
}

// parseMigrateArgs parses and checks migrate's command line: its options,
// its paths ("-" when none) and the migration they ask for. It returns no
// options and no error when --help was written.
func parseMigrateArgs(args []string, stdin io.Reader, stdout io.Writer) (*migrateOptions, []string, migrate.Options, error) {
	o := &migrateOptions{}
	paths, err := newMigrateFlagSet(o).Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, migrate.Options{}, writeOut(stdout, migrateUsageHead+newMigrateFlagSet(&migrateOptions{}).Help()+migrateUsageTail)
	}
	if err == nil {
		err = checkMigrateOptions(o, paths)
	}
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	if err == nil {
		var ins []clobber.File
		for _, p := range paths {
			ins = append(ins, clobber.File{Role: "the input", Path: p})
		}
		var outs []clobber.File
		if o.out != "" {
			outs = append(outs, clobber.File{Role: "-o", Path: o.out})
		}
		if o.report != "" {
			outs = append(outs, clobber.File{Role: "--report", Path: o.report})
		}
		if o.writesStdout() {
			outs = append(outs, clobber.File{Role: "standard output", Path: "-"})
		}
		err = guardFiles(ins, outs, stdin, stdout)
	}
	var mopts migrate.Options
	if err == nil {
		mopts, err = migrateOptionsOf(o)
	}
	if err != nil {
		return nil, nil, mopts, cmderr.Usage("cardscan migrate", err)
	}
	return o, paths, mopts, nil
}

// openOutputs creates where the migrated cards (-o, or stdout) and the
// report (--report, or stdout) go, and returns what flushes and closes
// them, in order, each error naming its output. -o and --report are
// written as --summary is (createPending): beside the file and renamed
// over it when written whole, so that a failed write leaves an earlier
// file as it was, and write-only, so that a FIFO whose reader goes fails
// the writes rather than blocking them. On an error, those opened are
// dropped.
func (r *migrateRun) openOutputs(stdout io.Writer) (closers []func() error, err error) {
	o := r.o
	var opened []*pendingFile
	defer func() {
		if err != nil {
			for _, f := range opened {
				f.discard()
			}
		}
	}()
	reportTo := o.report
	if reportTo == "" && (o.write || o.check || o.out != "") {
		reportTo = "-"
	}
	switch {
	case o.write || o.check:
	case o.out != "":
		f, err := createPending(o.out)
		if err != nil {
			return nil, cmderr.IOf("-o %s: %s", o.out, describe(err))
		}
		opened = append(opened, f)
		bw := bufio.NewWriterSize(namedWriter{"-o " + o.out, f}, 256<<10)
		r.cards = bw
		closers = append(closers, commitAfter(bw, f))
	default:
		bw := bufio.NewWriterSize(namedWriter{"standard output", stdout}, 256<<10)
		r.cards = bw
		closers = append(closers, bw.Flush)
	}
	switch reportTo {
	case "":
	case "-":
		r.records = bufio.NewWriterSize(namedWriter{"standard output", stdout}, 64<<10)
		closers = append(closers, r.records.Flush)
	default:
		f, err := createPending(reportTo)
		if err != nil {
			return nil, cmderr.IOf("--report %s: %s", reportTo, describe(err))
		}
		opened = append(opened, f)
		r.records = bufio.NewWriterSize(namedWriter{"--report " + reportTo, f}, 64<<10)
		closers = append(closers, commitAfter(r.records, f))
	}
	return closers, nil
}

// commitAfter flushes w into f and puts f in place, or drops f when a
// write failed: an output cut short is not put over an earlier one.
func commitAfter(w *bufio.Writer, f *pendingFile) func() error {
	return func() error {
		if err := w.Flush(); err != nil {
			f.discard()
			return err
		}
		return f.commit(nil)
	}
}

// namedWriter names its output in the errors of its writes: a write
// error surfaces while an input is migrated, and would otherwise be
// taken for one of that input.
type namedWriter struct {
	name string
	w    io.Writer
}

func (n namedWriter) Write(p []byte) (int, error) {
	k, err := n.w.Write(p)
	if err != nil {
		err = &outputWriteError{n.name, err}
	}
	return k, err
}

// outputWriteError is a failed write to the output named.
type outputWriteError struct {
	name string
	err  error
}

func (e *outputWriteError) Error() string { return "writing " + e.name + ": " + describe(e.err) }
func (e *outputWriteError) Unwrap() error { return e.err }

// writesStdout says the run writes to standard output: the cards, when
// they go nowhere else, or the records, when the cards do (as
// openOutputs sends them).
func (o *migrateOptions) writesStdout() bool {
	cardsElsewhere := o.out != "" || o.write || o.check
	return !cardsElsewhere || o.report == "" || o.report == "-"
}

func checkMigrateOptions(o *migrateOptions, paths []string) error {
	if o.to == "" {
		return usagef("--to is required: a2a/1.0 or a2a/0.3")
	}
	if o.from == "" {
		// The library takes "" for auto; given on the command line it
		// is a variable left unset, not a choice.
		return usagef(`--from "": want auto, a2a/0.2, a2a/0.3 or a2a/1.0`)
	}
	n := 0
	for _, b := range []bool{o.write, o.check, o.out != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return usagef("--write, --check and -o exclude each other")
	}
	if o.report == "-" && n == 0 {
		return usagef("--report - and the migrated cards would share standard output: give -o, --write or --check")
	}
	if o.out == "-" {
		// A file of that name, which the output guard would take for
		// standard output.
		return usagef("-o -: the cards go to standard output when -o is not given")
	}
	if o.noBack && !o.write {
		return usagef("--no-backup needs --write")
	}
	if o.write && (len(paths) == 0 || containsStdin(paths)) {
		return usagef("--write rewrites files: standard input has none (use -o)")
	}
	if o.key != "" && o.dropSignatures {
		return usagef("--key re-signs the cards --drop-signatures would leave unsigned: give one")
	}
	if o.policy != "default" && o.policy != "production" {
		return usagef("--policy %q: want default or production", o.policy)
	}
	if o.maxRecord < 1 {
		return usagef("--max-record must be at least 1 byte")
	}
	return nil
}

func containsStdin(paths []string) bool {
	for _, p := range paths {
		if p == "-" {
			return true
		}
	}
	return false
}

func migrateOptionsOf(o *migrateOptions) (migrate.Options, error) {
	mo := migrate.Options{To: o.to, From: o.from, KeepLegacy: o.keepLegacy, DropSignatures: o.dropSignatures, Validate: policyOptions(o.policy)}
	if o.key != "" {
		// Read as cardscan sign reads it, with its errors.
		k, err := sign.ReadKey(o.key, o.keyID)
		if err != nil {
			return mo, usagef("%s", err)
		}
		mo.SignKey = &k
		mo.SignOpts = cardsig.SignOptions{KeyID: o.keyID}
		// A key that cannot sign (no kid) would drop every signed
		// card's signatures and put none in their place.
		if err := cardsig.CheckSignOptions(k, mo.SignOpts); err != nil {
			return mo, usagef("--key %s: %s", o.key, strings.TrimPrefix(err.Error(), "cardsig: "))
		}
	}
	return mo, nil
}

// wholeCardName says a path holds one card, laid out by its author: a
// .json file, not compressed. Other inputs are read as NDJSON.
func wholeCardName(path string) bool {
	name := strings.ToLower(path)
	return path != "" && strings.HasSuffix(name, ".json")
}

// input migrates one input: a whole card file or an NDJSON stream.
func (r *migrateRun) input(in pipeline.Input, stdin io.Reader) error {
	var src io.Reader = stdin
	if in.Path != "" && r.o.write {
		// --write replaces the file by renaming a new one over it; over
		// a symbolic link, that would replace the link and leave the
		// file it names as it was. The file named is the card's, so it
		// is the one replaced, in its own directory, and the link stays.
		target, err := filepath.EvalSymlinks(in.Path)
		if err != nil {
			return err
		}
		in.Path = target
	}
	if in.Path != "" {
		f, err := os.Open(in.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	br := bufio.NewReaderSize(src, 256<<10)
	dec, compressed, err := decompress(br)
	if err != nil {
		return err
	}
	defer dec.Close()
	if compressed && r.o.write {
		return errors.New("--write cannot rewrite a compressed dump; use -o")
	}
	head, _ := dec.Peek(4)
	if err := mediatype.CheckEncoding(head); err != nil {
		return err
	}
	if wholeCardName(in.Path) || (in.Path == "" && !firstLineIsCard(dec.Reader)) {
		return r.wholeCard(in, dec)
	}
	return r.lines(in, dec.Reader)
}

// decodedInput is an input's content as read, decompressed when it was
// compressed; Close releases the decoder (a zstd decoder's buffers are
// megabytes, and migrate reads inputs by the thousand).
type decodedInput struct {
	*bufio.Reader
	decoder io.Closer // nil when nothing needs releasing
}

func (d *decodedInput) Close() error {
	if d.decoder == nil {
		return nil
	}
	return d.decoder.Close()
}

func decompress(br *bufio.Reader) (*decodedInput, bool, error) {
	head, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderMaxMemory(128<<20))
		if err != nil {
			return nil, true, err
		}
		rc := d.IOReadCloser()
		return &decodedInput{Reader: bufio.NewReaderSize(rc, 256<<10), decoder: rc}, true, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		// Member by member, as the validation run reads gzip: zero
		// padding after the last member is read through, other bytes
		// are an error rather than a member's bad header.
		g := new(gzipstream.Reader)
		if err := g.Reset(br); err != nil {
			return nil, true, err
		}
		return &decodedInput{Reader: bufio.NewReaderSize(g, 256<<10)}, true, nil
	}
	return &decodedInput{Reader: br}, false, nil
}

// firstLineIsCard says standard input is NDJSON: its first line holds a
// whole object. A pretty-printed card's first line is a lone brace.
func firstLineIsCard(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n *= 2 {
		b, err := br.Peek(min(n*1024, br.Size()))
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line := bytes.TrimSpace(b[:i])
			return len(line) > 1 && line[0] == '{' && line[len(line)-1] == '}'
		}
		if err != nil {
			line := bytes.TrimSpace(b)
			return len(line) > 1 && line[0] == '{' && line[len(line)-1] == '}' && json.Valid(line)
		}
	}
	return true
}

func (r *migrateRun) wholeCard(in pipeline.Input, src io.Reader) error {
	card, err := io.ReadAll(io.LimitReader(src, int64(r.o.maxRecord)+1))
	if err != nil {
		return err
	}
	if len(card) > int(r.o.maxRecord) {
		return fmt.Errorf("longer than --max-record %s", r.o.maxRecord.String())
	}
	var recs, notes []byte
	var t tally
	recsTo, notesTo := &recs, (*[]byte)(nil)
	if r.records == nil {
		recsTo, notesTo = nil, &notes
	}
	out := r.solo.one(in.Name, 0, card, &t, recsTo, notesTo)
	defer func() { r.tally.add(t) }()
	r.refusals(notes)
	if r.records != nil {
		if _, err := r.records.Write(recs); err != nil {
			if r.o.write {
				t.unwritten() // replace is not reached
			}
			return err
		}
	}
	switch {
	case r.o.write:
		if r.solo.rec.Changed() && r.solo.rec.Status != migrate.StatusFailed {
			if err := r.replace(in.Path, out, card); err != nil {
				t.unwritten()
				return err
			}
		}
	case r.cards != nil:
		if r.solo.rec.Status == migrate.StatusRefused && binaryText(card) {
			// Refused text goes out as it came, as a filter passes what
			// it cannot change; bytes that are no text would only garble
			// the stream or the terminal. Its record says it was refused.
			return nil
		}
		if !r.asIs {
			line, ok := oneLine(out)
			switch {
			case ok:
				out = append(line, '\n')
			case r.oneInput:
				// The only card of the run (a pretty card on standard
				// input) goes out as it came, a stream of its own.
				out = append(compact(out), '\n')
			default:
				// Among other cards, text that is no JSON value cannot be
				// made one line without changing it; written as it is, it
				// would be several records of the stream, or a blank one.
				// Its record says it was refused.
				return nil
			}
		}
		_, err = r.cards.Write(out)
	}
	return err
}

// binaryText says b is no text, as grep decides: it holds a NUL byte or
// is not UTF-8.
func binaryText(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)
}

// oneLine is a card file's text as one NDJSON line: compact when it
// spans lines, and not at all when it is empty or no JSON text spanning
// lines.
func oneLine(b []byte) ([]byte, bool) {
	line := compact(b)
	if len(line) == 0 || bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
		return nil, false
	}
	return line, true
}

func compact(b []byte) []byte {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return bytes.TrimSpace(b)
	}
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return bytes.TrimSpace(b)
	}
	return c.Bytes()
}

// replace writes a changed card file through a temporary file renamed
// over it, keeping a copy of the original unless --no-backup.
func (r *migrateRun) replace(path string, out, orig []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := tmp.Write(out); err != nil {
		return err
	}
	return r.commit(path, tmp)
}

func (r *migrateRun) commit(path string, tmp *os.File) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if !r.o.noBack {
		if err := keepOriginal(path, st.Mode().Perm()); err != nil {
			return err
		}
	}
	return os.Rename(tmp.Name(), path)
}

// keepOriginal keeps path's bytes as path.orig, before path is replaced:
// by a hard link, which copies nothing, or by a copy on a file system
// without links. A path.orig already there is replaced only when it holds
// those very bytes; anything else (the backup of an earlier original,
// patch's .orig, a directory) is left alone and the error says so, and
// path is not rewritten.
func keepOriginal(path string, perm os.FileMode) error {
	backup := path + ".orig"
	if fi, err := os.Lstat(backup); err == nil {
		same := false
		if fi.Mode().IsRegular() {
			old, oerr := os.ReadFile(backup)
			cur, cerr := os.ReadFile(path)
			same = oerr == nil && cerr == nil && bytes.Equal(old, cur)
		}
		if !same {
			return fmt.Errorf("%s exists and is no copy of %s: move it away, or give --no-backup", backup, path)
		}
		if err := os.Remove(backup); err != nil {
			return err
		}
	}
	if os.Link(path, backup) == nil {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// O_EXCL: a name that appeared since is not written through.
	f, err := os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return errors.Join(err, f.Close())
}

func (r *migrateRun) summary() string {
	c := r.tally.counts // in statusOrder
	s := fmt.Sprintf("migrate: %d migrated, %d unchanged, %d refused, %d failed the target", c[0], c[1], c[2], c[3])
	if r.tally.notWritten > 0 {
		s += fmt.Sprintf(", %d not written", r.tally.notWritten)
	}
	return s
}
