// Command cardscan validates agent cards in files, dumps and pipelines.
// Run cardscan --help for usage.
package main

import (
	"os"

	"github.com/cardscan/cardscan/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
