//go:build !purego

package tape

// HaveClassify says whether this machine has classifyBlocks.
const HaveClassify = true

//go:noescape
func classifyBlocks(b []byte, blocks []charBlock)
