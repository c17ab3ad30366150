package cli

import (
	"strconv"
	"strings"

	"github.com/cardscan/cardscan/internal/pipeline"
	"github.com/zeebo/xxh3"
)

// maxShards bounds --shard's N: far beyond any crawl's machines, and small
// enough that a typo (--shards 1000000000) is caught.
const maxShards = 1 << 20

// shardFlags are --shard i/N and --shards N, which scan and diff share.
type shardFlags struct {
	shard  string // "i/N"
	shards int    // N, with i from $JOB_COMPLETION_INDEX
	by     string // auto, file or record
}

// shardSpec is the slice of the inputs a run judges: shard index of count.
// A count of 1 is the whole.
type shardSpec struct {
	index, count int
	by           string // auto, file or record
}

// jobIndexVar is the variable a Kubernetes Indexed Job sets to each pod's
// index, from 0.
const jobIndexVar = "JOB_COMPLETION_INDEX"

// spec reads the flags, and $JOB_COMPLETION_INDEX for --shards.
func (f *shardFlags) spec(getenv func(string) string) (shardSpec, error) {
	s := shardSpec{count: 1, by: f.by}
	if s.by != "auto" && s.by != "file" && s.by != "record" {
		return s, usagef("--shard-by %q: want auto, file or record", f.by)
	}
	switch {
	case f.shard != "" && f.shards != 0:
		return s, usagef("--shard and --shards are one setting twice: give one")
	case f.shard != "":
		i, n, ok := strings.Cut(f.shard, "/")
		index, err1 := strconv.Atoi(i)
		count, err2 := strconv.Atoi(n)
		if !ok || err1 != nil || err2 != nil {
			return s, usagef("--shard %q: want i/N, such as 0/4", f.shard)
		}
		s.index, s.count = index, count
	case f.shards != 0:
		v := getenv(jobIndexVar)
		if v == "" {
			return s, usagef("--shards %d: $%s is not set (it is each pod's index in a Kubernetes Indexed Job); give --shard i/N instead", f.shards, jobIndexVar)
		}
		index, err := strconv.Atoi(v)
		if err != nil {
			return s, usagef("--shards %d: $%s=%q is not a number", f.shards, jobIndexVar, v)
		}
		s.index, s.count = index, f.shards
	default:
		return s, nil
	}
	if s.count < 1 || s.count > maxShards {
		return s, usagef("shard count %d: want 1 to %d", s.count, maxShards)
	}
	if s.index < 0 || s.index >= s.count {
		return s, usagef("shard %d of %d: want an index from 0 to %d", s.index, s.count, s.count-1)
	}
	return s, nil
}

// sharded reports whether the run is one slice of several.
func (s shardSpec) sharded() bool { return s.count > 1 }

// byRecord reports whether the slice is of records rather than of files:
// always with --shard-by record, never with file, and with auto when there
// are fewer inputs than shards, when slicing by file would leave shards
// idle and one huge file to a single machine. Every shard sees the same
// inputs and so takes the same decision.
func (s shardSpec) byRecord(inputs []pipeline.Input) bool {
	switch s.by {
	case "record":
		return true
	case "file":
		return false
	}
	return len(inputs) < s.count
}

// pick returns the inputs the shard reads, and the slice of their records
// it judges. By file, an input belongs to the shard its name hashes to
// (fileShard); by record, the shard reads every input and judges the
// records pipeline.RecordShard gives it.
func (s shardSpec) pick(inputs []pipeline.Input) ([]pipeline.Input, pipeline.Slice) {
	if !s.sharded() {
		return inputs, pipeline.Slice{}
	}
	if s.byRecord(inputs) {
		return inputs, pipeline.Slice{Index: s.index, Count: s.count}
	}
	var mine []pipeline.Input
	for _, in := range inputs {
		if fileShard(in.Name, s.count) == s.index {
			mine = append(mine, in)
		}
	}
	return mine, pipeline.Slice{}
}

// fileShard is the shard, of n, of the input named name: the XXH3 of the
// name as given on the command line or found by the walk below it, so
// that the same command line gives the same slices on every machine,
// whatever else the machines' directories hold, and an input added to a
// later crawl moves no other.
func fileShard(name string, n int) int {
	return int(xxh3.HashString(name) % uint64(n))
}

// inputOrder maps each input's name to its place among all inputs, the
// order one run over them all would judge them in: digest files carry it,
// so that merging shards' digests puts records in one run's order.
func inputOrder(inputs []pipeline.Input) map[string]int {
	order := make(map[string]int, len(inputs))
	for i, in := range inputs {
		if _, ok := order[in.Name]; !ok {
			order[in.Name] = i
		}
	}
	return order
}

// maxDigestParts bounds --digest-parts: a shard holds a compressor per
// part while it writes them.
const maxDigestParts = 256
