package cli

import (
	"fmt"
	"sync"
	"time"

	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// nonTTYProgressEvery spaces progress lines that go to a log rather than a
// terminal.
var nonTTYProgressEvery = 10 * time.Second

type progress struct {
	done chan struct{}
	wg   sync.WaitGroup
	tty  bool // redrawn in place on a terminal
}

// startProgress shows records, MB judged and MB/s, counted decompressed
// as the summary line counts them, and, when the total input size as
// stored is known (total > 0), how much of it is read and the ETA, which
// must compare stored bytes with stored bytes. On a terminal the line is redrawn
// in place four times a second; elsewhere (--progress always into a log)
// a line is appended every ten seconds.
func startProgress(when string, con *console.Console, p *pipeline.Progress, total int64) *progress {
	pr := &progress{done: make(chan struct{})}
	tty := con.Terminal()
	if when == "never" || (when == "auto" && !tty) {
		return pr
	}
	pr.tty = tty
	every := 250 * time.Millisecond
	if !tty {
		every = nonTTYProgressEvery
	}
	start := time.Now()
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pr.done:
				return
			case <-t.C:
			}
			elapsed := time.Since(start).Seconds()
			con.Progress(progressLine(p.Records.Load(), p.BytesDecompressed.Load(), p.BytesRead.Load(), total, elapsed))
		}
	}()
	return pr
}

// progressLine is the progress line after elapsed seconds, for records
// judged from judged bytes (decompressed), read of the total bytes as
// stored (total 0 when unknown).
func progressLine(records, judged, read, total int64, elapsed float64) string {
	noun := "records"
	if records == 1 {
		noun = "record"
	}
	line := fmt.Sprintf("%d %s, %.1f MB judged, %.1f MB/s", records, noun, float64(judged)/1e6, float64(judged)/1e6/elapsed)
	if total > 0 && read > 0 {
		left := time.Duration(float64(total-read) / float64(read) * elapsed * float64(time.Second))
		line += fmt.Sprintf(", %.0f%% of the input read, ETA %s", 100*float64(read)/float64(total), left.Round(time.Second))
	}
	return line
}

func (pr *progress) stop() {
	close(pr.done)
	pr.wg.Wait()
}
