//go:build amd64 && !purego

package fastvalidate

import (
	"os"
	"os/exec"
	"testing"
)

// TestContentOnEveryCPU runs the content tables again in a child process
// for each set of CPU features the matcher picks its pass by, turned off
// through GODEBUG (which golang.org/x/sys/cpu reads): AVX-512 off leaves
// gateTextAVX2, BMI2 off matchRaw with the nibble tables, AVX2 off
// matchRaw hashing every word. With AVX2 off alone, gateTextVec once ran
// while the words it passed over were never hashed again, and hostile
// cards went unfound.
func TestContentOnEveryCPU(t *testing.T) {
	if os.Getenv("CARDSCAN_TEST_CPU_CHILD") != "" {
		t.Skip("in the child process")
	}
	if testing.Short() {
		t.Skip("starts a process for each set of features")
	}
	for _, features := range []string{
		"cpu.avx2=off",
		"cpu.avx512f=off,cpu.avx512bw=off",
		"cpu.avx512f=off,cpu.avx512bw=off,cpu.bmi2=off",
		"cpu.avx512f=off,cpu.avx512bw=off,cpu.avx2=off",
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^(TestContentHostile|TestContentHonest|TestContentMentions)$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "GODEBUG="+features, "CARDSCAN_TEST_CPU_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GODEBUG=%s: %v\n%s", features, err, out)
		}
	}
}
