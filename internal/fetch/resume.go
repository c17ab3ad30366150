package fetch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bytedance/sonic"
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
}

func newURLSource(args []string, list io.Reader, done map[string]int) *urlSource {
	s := &urlSource{args: args, done: done}
	if list != nil {
		s.list = bufio.NewReader(list)
	}
	return s
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
			line, err := s.list.ReadString('\n')
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

// openResume opens the output of an earlier run for appending and counts
// the URLs its records hold. A last line without a newline is a record
// cut short when that run was stopped: it is cut off, and its URL fetched
// again. A line that is not a cards record means the file is not such an
// output, and nothing is written to it.
func openResume(path string) (*os.File, map[string]int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, pathErr(err)
	}
	done := map[string]int{}
	br := bufio.NewReaderSize(f, 64<<10)
	var complete int64 // bytes up to the last newline
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			// A record longer than the buffer: keep reading it.
			var more []byte
			more, err = br.ReadSlice('\n')
			line = append(bytes.Clone(line), more...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		var rec struct {
			URL *string `json:"url"`
		}
		if sonic.ConfigStd.Unmarshal(line, &rec) != nil || rec.URL == nil {
			f.Close()
			return nil, nil, fmt.Errorf("line %d is not a record of --format cards; not appending to it", lineNo)
		}
		done[*rec.URL]++
		complete += int64(len(line))
	}
	if err := f.Truncate(complete); err != nil {
		f.Close()
		return nil, nil, err
	}
	if _, err := f.Seek(complete, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, done, nil
}
