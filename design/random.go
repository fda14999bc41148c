package design

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Streams of the PCG generator, one per use of the seed (see the package
// doc). Shuffles use the streams 0 … mpiruns−1.
const (
	streamSizes    uint64 = 1 << 62
	streamRunSeeds uint64 = 1 << 63
)

// source is the seeded generator. Only PCG's Uint64 is used, whose output
// math/rand/v2 specifies; bounded integers, floats and shuffles are
// computed here so that a seed means the same in every Go release.
type source struct{ pcg *rand.PCG }

func newSource(seed, stream uint64) source { return source{rand.NewPCG(seed, stream)} }

// intN returns a uniform integer in [0, n) by Lemire's multiply-and-reject
// method (no modulo bias). n must be positive.
func (s source) intN(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(s.pcg.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(s.pcg.Uint64(), un)
		}
	}
	return int(hi)
}

// float64 returns a uniform float64 in [0, 1) with 53 random bits.
func (s source) float64() float64 {
	return float64(s.pcg.Uint64()>>11) / (1 << 53)
}

// shuffle permutes the n elements with swap by Fisher–Yates.
func (s source) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, s.intN(i+1))
	}
}

// RunSeed returns the seed passed to the run of mpirun i of a campaign
// with seed seed: the first output of PCG(seed, streamRunSeeds+i).
func RunSeed(seed uint64, i int) uint64 {
	return newSource(seed, streamRunSeeds+uint64(i)).pcg.Uint64()
}

// LogUniformSizes returns n distinct message sizes in [a, b] bytes drawn
// log-uniformly, 10^U(log10 a, log10 b) rounded to the nearest integer, as
// Stanisic et al. 2017, §V recommends (sizes spread evenly over orders of magnitude and
// not only "round" sizes, which hides artefacts of particular sizes). It is
// logUniformMultiples with step 1.
func LogUniformSizes(a, b, n int, seed uint64) (sizes []int, ok bool) {
	return logUniformMultiples(a, b, n, 1, seed)
}

// logUniformMultiples returns n distinct sizes in [a, b] that are multiples
// of step (for datatypes wider than a byte), each 10^U(log10 a, log10 b)
// rounded to the nearest multiple of step inside [a, b]. The draws come
// from PCG(seed, streamSizes); duplicates after rounding are drawn again.
// The sizes are returned in increasing order. It needs 1 ≤ a ≤ b, step ≥ 1
// and at least n multiples of step in [a, b]; it gives up with ok false if,
// after 100·n draws, fewer than n distinct sizes came out, which happens
// only when n is close to the number of candidates. When n is not small
// against the number of candidates in the lowest decades, redrawing
// duplicates makes the larger decades over-represented: the sizes are then
// log-uniform draws conditioned on being distinct.
func logUniformMultiples(a, b, n, step int, seed uint64) (sizes []int, ok bool) {
	if a < 1 || b < a || n < 0 || step < 1 {
		return nil, false
	}
	lo, hi := (a+step-1)/step*step, b/step*step
	if hi < lo || n > (hi-lo)/step+1 {
		return nil, false
	}
	src := newSource(seed, streamSizes)
	la, lb := math.Log10(float64(a)), math.Log10(float64(b))
	seen := map[int]bool{}
	for tries := 0; len(sizes) < n; tries++ {
		if tries >= 100*n {
			return nil, false
		}
		v := math.Pow(10, la+(lb-la)*src.float64())
		x := int(math.Round(v/float64(step))) * step
		x = min(max(x, lo), hi)
		if !seen[x] {
			seen[x] = true
			sizes = append(sizes, x)
		}
	}
	slices.Sort(sizes)
	return sizes, true
}
