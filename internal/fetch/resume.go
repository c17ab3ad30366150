package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// urlSource yields the URLs to fetch: those of the command line, then
// those of the --urls list, read as they are needed so that a list of
// millions is never held whole. URLs that a resumed output already holds
// are skipped, each as many times as it is held.
type urlSource struct {
	args []string
	list *bufio.Reader // nil without --urls
	done map[string]int
	err  error // reading the list failed
	line int   // the list's lines read
	// tooLong is told of each line of the list longer than maxURLLine,
	// which is skipped; long counts them.
	tooLong func(line int)
	long    int
}

// maxURLLine is the longest line of a URL list read as a URL: eight times
// the 8000 octets RFC 9110 (section 4.1) has every party support, far
// beyond any URL a server takes. A longer line is skipped as it is read,
// never held: a list is untrusted input, and a line without end (a binary
// file, /dev/zero) would otherwise grow without bound.
const maxURLLine = 64 << 10

const byteOrderMark = "\ufeff"

func newURLSource(args []string, list io.Reader, done map[string]int, tooLong func(line int)) *urlSource {
	s := &urlSource{args: args, done: done, tooLong: tooLong}
	if list != nil {
		s.list = bufio.NewReader(list)
	}
	return s
}

// readLine reads the list's next line, up to maxURLLine bytes (and its
// line end); a longer one is read to its end without being kept, counted
// and reported, and given as an empty line. The error is the read's:
// io.EOF with the last line.
func (s *urlSource) readLine() (string, error) {
	s.line++
	var line []byte
	long := false
	for {
		chunk, err := s.list.ReadSlice('\n')
		if !long && len(line)+len(chunk) > maxURLLine+len("\r\n") {
			long, line = true, nil
		}
		if !long {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if s.line == 1 {
			// An editor's byte order mark opens the file, not its first
			// URL; the validation run skips it the same way.
			line = bytes.TrimPrefix(line, []byte(byteOrderMark))
		}
		if long {
			s.long++
			if s.tooLong != nil {
				s.tooLong(s.line)
			}
		}
		return string(line), err
	}
}

// next returns the next URL to fetch, or false at the end of the list (or
// at a read error, which err holds).
func (s *urlSource) next() (string, bool) {
	for {
		var u string
		switch {
		case len(s.args) > 0:
			u, s.args = s.args[0], s.args[1:]
		case s.list != nil && s.err == nil:
			line, err := s.readLine()
			if err != nil {
				if err != io.EOF {
					s.err = err
				}
				s.list = nil
			}
			u = strings.TrimSpace(line)
			if u == "" || strings.HasPrefix(u, "#") {
				continue
			}
		default:
			return "", false
		}
		if n := s.done[u]; n > 0 {
			s.done[u] = n - 1
			continue
		}
		return u, true
	}
}

// maxResumeLine is the longest line of a --resume file that is read as a
// record, for a --max-record of maxRecord: the card escaped as a string
// (at worst six bytes for one, \u0000) and its findings. A longer line is
// not a record this command wrote with that --max-record, and is never
// held in memory.
func maxResumeLine(maxRecord int64) int64 {
	return 6*maxRecord + 4<<20
}

// resumeTail is the damaged tail openResume cut off: from line on, bytes
// long.
type resumeTail struct {
	line  int
	bytes int64
}

// openResume opens the output of an earlier run for appending and counts
// the URLs its records hold. Its damaged tail is cut off, and its URLs
// fetched again: a last line without a newline (a record cut short when
// that run was stopped) and, before it, lines of NUL bytes or none (what
// a file system leaves of blocks it had allocated but not written when the
// machine stopped). Any other line that is not a cards record, or a NUL
// line before a record, means the file is not such an output, and nothing
// is written to it. A line is read in at most maxLine bytes, and a NUL
// line not at all, so that a damaged file costs no more memory than a
// record.
func openResume(path string, maxLine int64) (*os.File, map[string]int, resumeTail, error) {
	return openResumeOf(path, maxLine, cardsRecords)
}

// resumeKind is the kind of record a --resume file holds: what its
// records are called, and the key of a record, false when the line is not
// one.
type resumeKind struct {
	name string
	key  func(line []byte) (string, bool)
}

// cardsRecords are fetch --format cards records, keyed by their URL as
// listed: url_base64's bytes when the record has them (a URL that is not
// UTF-8, which url holds with U+FFFD for its bad bytes).
var cardsRecords = resumeKind{name: "a record of --format cards", key: func(line []byte) (string, bool) {
	var rec struct {
		URL       *string `json:"url"`
		URLBase64 []byte  `json:"url_base64"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.URL == nil {
		return "", false
	}
	if rec.URLBase64 != nil {
		return string(rec.URLBase64), true
	}
	return *rec.URL, true
}}

// openResumeOf is openResume for a file of the records of kind.
func openResumeOf(path string, maxLine int64, kind resumeKind) (*os.File, map[string]int, resumeTail, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, resumeTail{}, fmt.Errorf("%s: %w", path, pathErr(err))
	}
	done, complete, tail, err := readResume(bufio.NewReaderSize(f, 64<<10), maxLine, kind)
	var bad badLine
	switch {
	case errors.As(err, &bad):
		err = fmt.Errorf("%s:%d: %s; not appending to it", path, bad.line, bad.msg)
	case err == nil:
		if err = f.Truncate(complete); err == nil {
			_, err = f.Seek(complete, io.SeekStart)
		}
	}
	if err != nil {
		f.Close()
		if bad.line == 0 {
			err = fmt.Errorf("%s: %w", path, pathErr(err))
		}
		return nil, nil, resumeTail{}, err
	}
	return f, done, tail, nil
}

// badLine is a line of a --resume file that shows it is not an output of
// fetch --format cards.
type badLine struct {
	line int
	msg  string
}

func (e badLine) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// readResume reads a --resume file's records and returns the URLs they
// hold, the length of the file up to the last of them, and the damaged
// tail after it.
func readResume(r *bufio.Reader, maxLine int64, kind resumeKind) (map[string]int, int64, resumeTail, error) {
	done := map[string]int{}
	var (
		complete int64 // bytes up to the last record's newline
		tail     resumeTail
		line     resumeLine
	)
	for lineNo := 1; ; lineNo++ {
		if err := line.read(r, maxLine); err != nil && err != io.EOF {
			return nil, 0, resumeTail{}, err
		}
		switch {
		case line.size == 0: // the end
			return done, complete, tail, nil
		case !line.terminated:
			if tail.line == 0 {
				tail.line = lineNo
			}
			tail.bytes += line.size
			return done, complete, tail, nil
		case line.blank:
			if tail.line == 0 {
				tail.line = lineNo
			}
			tail.bytes += line.size
			continue
		case tail.line != 0:
			return nil, 0, resumeTail{}, badLine{tail.line, "not " + kind.name + ", and records follow"}
		case line.size > maxLine:
			return nil, 0, resumeTail{}, badLine{lineNo, fmt.Sprintf("longer than %d bytes, which no %s with this --max-record is", maxLine, strings.TrimPrefix(kind.name, "a "))}
		}
		key, ok := "", false
		if line.kept {
			key, ok = kind.key(line.text)
		}
		if !ok {
			return nil, 0, resumeTail{}, badLine{lineNo, "not " + kind.name}
		}
		done[key]++
		complete += line.size
	}
}

// resumeLine is one line of a --resume file.
type resumeLine struct {
	// text is the line with its newline, when kept; its array is kept
	// from line to line.
	text []byte
	// kept says text holds the line: it starts as a record does, with
	// {, and is at most the longest a record can be. Any other line is
	// only measured.
	kept bool
	// size is the line's length in bytes, its newline included.
	size int64
	// terminated says the line ends with a newline.
	terminated bool
	// blank says the line holds only NUL bytes, or nothing.
	blank bool
}

// read reads the next line from r, keeping at most maxLine bytes of it.
func (l *resumeLine) read(r *bufio.Reader, maxLine int64) error {
	l.text, l.size, l.terminated, l.blank = l.text[:0], 0, false, true
	for {
		chunk, err := r.ReadSlice('\n')
		if l.size == 0 {
			l.kept = len(chunk) > 0 && chunk[0] == '{'
		}
		l.size += int64(len(chunk))
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1]
			l.terminated = true
		}
		l.blank = l.blank && len(bytes.Trim(body, "\x00")) == 0
		l.kept = l.kept && l.size <= maxLine
		if l.kept {
			l.text = appendDoubling(l.text, chunk, maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// appendDoubling appends chunk to text, doubling its array when it is
// full but never past limit, so that a line of n bytes allocates under
// 2n, where append's gentler growth for large slices allocated 5n.
func appendDoubling(text, chunk []byte, limit int64) []byte {
	if need := len(text) + len(chunk); need > cap(text) {
		grown := make([]byte, len(text), min(max(2*cap(text), need), int(limit)))
		copy(grown, text)
		text = grown
	}
	return append(text, chunk...)
}
