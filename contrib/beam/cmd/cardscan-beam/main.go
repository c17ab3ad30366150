// Command cardscan-beam runs cardscan's validation as an Apache Beam
// pipeline (package cardbeam) on the runner --runner names: prism, the
// default, in this process; dataflow, flink or spark with their own flags
// (docs/cli.md).
//
//	cardscan-beam --inputs 'gs://registry/dumps/*.ndjson.zst' \
//	  --valid-out gs://registry/out/valid.ndjson --invalid-out gs://registry/out/invalid.ndjson \
//	  --summary gs://registry/out/summary.json --runner dataflow --project P --region R \
//	  --staging_location gs://registry/staging
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
	flag.StringVar(&o.Inputs, "inputs", "", "glob of the NDJSON dumps (plain, gzip or zstd) to judge")
	flag.StringVar(&o.Profile, "profile", "auto", "fastvalidate profile")
	flag.StringVar(&o.ValidOut, "valid-out", "", "file of the valid records")
	flag.StringVar(&o.InvalidOut, "invalid-out", "", "file of the invalid records")
	flag.StringVar(&o.Summary, "summary", "", "file of the counts, as cardscan --summary writes them")
	flag.Parse()
	beam.Init()
	if o.Inputs == "" {
		fmt.Fprintln(os.Stderr, "cardscan-beam: --inputs GLOB is required")
		os.Exit(2)
	}
	p, s := beam.NewPipelineWithRoot()
	if err := cardbeam.Build(s, o); err != nil {
		fmt.Fprintf(os.Stderr, "cardscan-beam: %v\n", err)
		os.Exit(2)
	}
	if err := beamx.Run(context.Background(), p); err != nil {
		fmt.Fprintf(os.Stderr, "cardscan-beam: %v\n", err)
		os.Exit(1)
	}
}
