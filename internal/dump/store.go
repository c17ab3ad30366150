package dump

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
)

// Partitions is the number of temporary files a store spreads its digests
// over once they outgrow its budget. A partition is loaded whole to be
// compared, so 64 keeps a 10-million-card dump's partitions to tens of
// megabytes each (docs/performance.md) with few open files.
const Partitions = 64

// store holds encoded digests in memory up to budget bytes, then spills
// them, and every later one, to Partitions files by the hash of their key;
// a digest's partition depends on its key only, so two stores' partitions
// i hold the same keys. Digests keep their order of arrival within a
// partition, so that the last of a key's records stays last.
type store struct {
	name   string // "old", "new" or "cards": part of the files' names
	dir    string // temporary directory, shared by a run's stores
	budget int64
	// blocks hold the digests in memory, when not spilled, each block
	// whole digests. One buffer grown by append copied all that it held
	// at each doubling, in one memmove that page-faulted into fresh memory
	// and that the garbage collector, stopping goroutines for its stack
	// scans, waited on: a fifth of diff's CPU on the make perf dumps.
	blocks  [][]byte
	held    int64  // bytes in blocks
	loaded  []byte // the partition load read last, once spilled
	files   []*os.File
	ws      []*bufio.Writer
	records int64
	bytes   int64 // of digests added: the disk a spilled store takes
}

func newStore(name, dir string, budget int64) *store {
	return &store{name: name, dir: dir, budget: budget}
}

// blockSize is the least size of a store's block of digests in memory.
const blockSize = 1 << 20

// add adds b, digests back to back as Extractor.Append writes them.
func (s *store) add(b []byte) error {
	s.bytes += int64(len(b))
	if s.files == nil {
		for rest := b; ; {
			_, r, ok := nextDigest(rest)
			if !ok {
				break
			}
			s.records++
			rest = r
		}
		last := len(s.blocks) - 1
		if last < 0 || cap(s.blocks[last])-len(s.blocks[last]) < len(b) {
			s.blocks = append(s.blocks, make([]byte, 0, max(blockSize, len(b))))
			last++
		}
		s.blocks[last] = append(s.blocks[last], b...)
		s.held += int64(len(b))
		if s.held > s.budget {
			return s.spill()
		}
		return nil
	}
	return s.route(b, true)
}

func (s *store) spilled() bool { return s.files != nil }

// spill moves the digests in memory to the partition files.
func (s *store) spill() error {
	if s.files != nil {
		return nil
	}
	s.files = make([]*os.File, Partitions)
	s.ws = make([]*bufio.Writer, Partitions)
	for i := range s.files {
		f, err := os.Create(filepath.Join(s.dir, fmt.Sprintf("%s-%02d", s.name, i)))
		if err != nil {
			return err
		}
		s.files[i], s.ws[i] = f, bufio.NewWriterSize(f, 32<<10)
	}
	for _, b := range s.blocks {
		if err := s.route(b, false); err != nil {
			return err
		}
	}
	s.blocks, s.held = nil, 0
	return nil
}

// route writes each digest of b to its partition.
func (s *store) route(b []byte, count bool) error {
	for {
		rec, rest, ok := nextDigest(b)
		if !ok {
			return nil
		}
		if count {
			s.records++
		}
		_, key := digestKey(rec)
		w := s.ws[partition(key)]
		if _, err := w.Write(b[:len(b)-len(rest)]); err != nil {
			return err
		}
		b = rest
	}
}

func partition(key []byte) int { return int(xxhash.Sum64(key) % Partitions) }

// load returns partition i's digests, in pieces of whole digests; what
// it returns is reused by the next load.
func (s *store) load(i int) ([][]byte, error) {
	if s.files == nil {
		return s.blocks, nil
	}
	if err := s.ws[i].Flush(); err != nil {
		return nil, err
	}
	f := s.files[i]
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if int64(cap(s.loaded)) < st.Size() {
		s.loaded = make([]byte, st.Size())
	}
	buf := s.loaded[:st.Size()]
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	return [][]byte{buf}, nil
}

// eachDigest yields the digests of blocks, as load returns them.
func eachDigest(blocks [][]byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, b := range blocks {
			for {
				rec, rest, ok := nextDigest(b)
				if !ok || !yield(rec) {
					break
				}
				b = rest
			}
		}
	}
}

// close removes the partition files.
func (s *store) close() {
	for _, f := range s.files {
		if f == nil {
			continue
		}
		f.Close()
		os.Remove(f.Name())
	}
	s.files, s.ws, s.blocks, s.loaded = nil, nil, nil, nil
}
