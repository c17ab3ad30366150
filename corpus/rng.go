package corpus

import (
	"math/bits"
	"math/rand/v2"
)

// rng draws every random choice from PCG's raw 64-bit outputs only. PCG's
// output sequence is fixed by its definition, while the derived helpers of
// math/rand/v2 (IntN, Float64, Shuffle) make no promise to keep their
// values across Go releases; deriving our own keeps a seed's corpus
// byte-identical on any toolchain.
type rng struct {
	pcg rand.PCG
}

func newRNG(seed, stream uint64) *rng {
	return &rng{pcg: *rand.NewPCG(seed, stream)}
}

func (r *rng) uint64() uint64 { return r.pcg.Uint64() }

// intn returns a number in [0, n) by multiply-shift (Lemire). The bias for
// the small n used here is below 2^-50: irrelevant for test data.
func (r *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	hi, _ := bits.Mul64(r.uint64(), uint64(n))
	return int(hi)
}

// between returns a number in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance reports true with probability p: never for p <= 0, always for p >= 1.
func (r *rng) chance(p float64) bool {
	return float64(r.uint64()>>11)*(1.0/(1<<53)) < p
}

func (r *rng) pick(list []string) string { return list[r.intn(len(list))] }

// pickDistinct appends k distinct entries of list, whose entries are
// themselves distinct, to dst.
func (r *rng) pickDistinct(dst []string, list []string, k int) []string {
	k = min(k, len(list))
	start := len(dst)
	for len(dst)-start < k {
		s := r.pick(list)
		dup := false
		for _, t := range dst[start:] {
			if t == s {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, s)
		}
	}
	return dst
}

// shuffle permutes p in place (Fisher-Yates).
func (r *rng) shuffle(p []int) {
	for i := len(p) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}
