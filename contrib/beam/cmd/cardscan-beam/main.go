// Command cardscan-beam runs cardscan's validation as an Apache Beam
// pipeline (package cardbeam) on the runner --runner names: prism, the
// default, in this process; dataflow, flink or spark with their own flags
// (docs/cli.md). With --old and --new it writes the digests of two dumps
// instead, which cardscan merge compares as cardscan diff would.
//
//	cardscan-beam --inputs 'gs://registry/dumps/*.ndjson.zst' \
//	  --valid-out gs://registry/out/valid.ndjson --invalid-out gs://registry/out/invalid.ndjson \
//	  --summary gs://registry/out/summary.json --digest gs://registry/out/claims \
//	  --runner dataflow --project P --region R --staging_location gs://registry/staging
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/cardscan/cardscan/contrib/beam/cardbeam"
)

func main() {
	var o cardbeam.Options
	var d cardbeam.DiffOptions
	flag.StringVar(&o.Inputs, "inputs", "", "glob of the NDJSON dumps (plain, gzip or zstd) to judge")
	flag.StringVar(&o.Profile, "profile", "auto", "fastvalidate profile")
	flag.StringVar(&o.ValidOut, "valid-out", "", "file of the valid records")
	flag.StringVar(&o.InvalidOut, "invalid-out", "", "file of the invalid records")
	flag.StringVar(&o.Summary, "summary", "", "file of the counts, as cardscan --summary writes them")
	flag.StringVar(&o.Digest, "digest", "", "write each input's --cross-card claims (with --old and --new,\n"+
		"both dumps' diff digests) to DIGEST-I-of-N, for cardscan merge")
	flag.IntVar(&o.DigestParts, "digest-parts", 1, "split each digest file into P parts by key hash, as\n"+
		"cardscan --digest-parts does")
	flag.IntVar(&o.DigestShards, "digest-shards", 0, "write one digest file per shard of the inputs (input I\n"+
		"in shard I mod S), DIGEST-shard-K-of-S, rather than per input")
	flag.Int64Var(&o.Memory, "memory", cardbeam.DefaultMemory, "bytes of one input's digest held in memory before\n"+
		"it spills to sorted temporary files")
	flag.StringVar(&d.Old, "old", "", "glob of the old dump's files: with --new, write diff digests")
	flag.StringVar(&d.New, "new", "", "glob of the new dump's files")
	flag.StringVar(&d.Key, "key", "auto", "auto, source or id: what matches a card across dumps, as\n"+
		"cardscan diff --key")
	flag.Parse()
	beam.Init()
	diff := d.Old != "" || d.New != ""
	if diff == (o.Inputs != "") {
		fmt.Fprintln(os.Stderr, "cardscan-beam: want --inputs GLOB, or --old GLOB --new GLOB --digest PATH")
		os.Exit(2)
	}
	if diff && o.ValidOut+o.InvalidOut+o.Summary != "" {
		fmt.Fprintln(os.Stderr, "cardscan-beam: with --old and --new only --digest is written; "+
			"--valid-out, --invalid-out and --summary are validation's")
		os.Exit(2)
	}
	p, s := beam.NewPipelineWithRoot()
	var err error
	if diff {
		d.Profile, d.Digest, d.DigestParts, d.DigestShards, d.Memory = o.Profile, o.Digest, o.DigestParts, o.DigestShards, o.Memory
		err = cardbeam.BuildDiff(s, d)
	} else {
		err = cardbeam.Build(s, o)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cardscan-beam: %v\n", err)
		os.Exit(2)
	}
	if err := beamx.Run(context.Background(), p); err != nil {
		fmt.Fprintf(os.Stderr, "cardscan-beam: %v\n", err)
		os.Exit(1)
	}
}
