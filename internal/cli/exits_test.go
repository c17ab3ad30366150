package cli

import "github.com/cardscan/cardscan/internal/console"

// Short names for the exit statuses, in the tests of the CLI's promises.
const (
	exitOK      = console.ExitOK
	exitInvalid = console.ExitInvalid
	exitUsage   = console.ExitUsage
	exitIO      = console.ExitIO
)
