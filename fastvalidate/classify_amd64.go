//go:build !purego

package fastvalidate

// haveClassify says whether this machine has classifyBlocks.
const haveClassify = true

//go:noescape
func classifyBlocks(b []byte, blocks []charBlock)
