package cli

import "github.com/cardscan/cardscan/internal/cmderr"

// Short names for the exit statuses, in the tests of the CLI's promises.
const (
	exitOK      = cmderr.StatusOK
	exitInvalid = cmderr.StatusFailed
	exitUsage   = cmderr.StatusUsage
	exitIO      = cmderr.StatusIO
)
