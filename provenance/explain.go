package provenance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Explanation is one recorded fact and how well it separates two sides'
// mpiruns (Explain).
type Explanation struct {
	// Fact is the fact's name (a control variable's name, or a fact of
	// Record.Facts); A and B its values on each side ("|"-joined when an
	// side's mpiruns differ).
	Fact string `json:"fact"`
	A    string `json:"a"`
	B    string `json:"b"`
	// Separation is the share of mpiruns whose side the fact's value
	// predicts (each value votes for the side most of its mpiruns are on):
	// 1 separates the sides completely, max(nA, nB)/n not at all.
	Separation float64 `json:"separation"`
	// P is the permutation test's p-value: the share of random
	// reassignments of the mpiruns to the sides (keeping their sizes)
	// whose separation is at least the observed one, (1+k)/(1+R).
	P float64 `json:"p"`
	// Named is set when P ≤ alpha.
	Named bool `json:"named"`
}

// ExplainResult is Explain's answer: the test's parameters, and the facts
// ranked by separation and then by P.
type ExplainResult struct {
	Method       string  `json:"method"`
	Alpha        float64 `json:"alpha"`
	Seed         uint64  `json:"seed"`
	Permutations int     `json:"permutations"`
	MpirunsA     int     `json:"mpiruns_a"`
	MpirunsB     int     `json:"mpiruns_b"`
	// MinP is the smallest exact p-value a fact can have with these
	// sides' sizes: 2/C(n, nA) with equal sides (the split and its mirror
	// separate completely), 1/C(n, nA) otherwise; the permutation
	// estimate is near it for a fact that separates the sides completely.
	MinP  float64       `json:"min_p"`
	Facts []Explanation `json:"facts"`
}

// explainMethod describes the test.
const explainMethod = "each recorded fact's separation of the two sides' mpiruns (the share whose side its value predicts), " +
	"tested by permuting the mpiruns between the sides (sizes kept); a fact is named when p ≤ alpha"

// Explain ranks the facts on which the mpiruns of sides a and b differ
// (Record.Facts, a control variable left at its default counting as
// "default") by how well each separates the two sides' mpiruns, with a
// permutation test over the mpiruns (perms random reassignments drawn from
// seed) at level alpha. Facts with a single value over every mpirun are
// left out, so two identical campaigns name nothing. nil records are
// skipped.
func Explain(a, b []*Record, alpha float64, seed uint64, perms int) ExplainResult {
	a, b = slices.DeleteFunc(slices.Clone(a), isNil), slices.DeleteFunc(slices.Clone(b), isNil)
	res := ExplainResult{Method: explainMethod, Alpha: alpha, Seed: seed, Permutations: perms, MpirunsA: len(a), MpirunsB: len(b)}
	n := len(a) + len(b)
	if len(a) == 0 || len(b) == 0 {
		return res
	}
	if len(a) == len(b) {
		res.MinP = 2 / binom(n, len(a))
	} else {
		res.MinP = 1 / binom(n, len(a))
	}
	facts := make([]map[string]string, 0, n)
	keys := map[string]bool{}
	for _, r := range append(slices.Clone(a), b...) {
		f := r.Facts()
		facts = append(facts, f)
		for k := range f {
			keys[k] = true
		}
	}
	side := make([]bool, n) // true: B
	for i := len(a); i < n; i++ {
		side[i] = true
	}
	for _, k := range slices.Sorted(mapKeys(keys)) {
		vals := make([]string, n)
		distinct := map[string]bool{}
		for i, f := range facts {
			v, ok := f[k]
			if !ok {
				v = "-"
				if strings.HasPrefix(k, cvarPrefix) {
					v = defaultText
				}
			}
			vals[i] = v
			distinct[v] = true
		}
		if len(distinct) < 2 {
			continue
		}
		obs := separation(vals, side)
		rng := rand.New(rand.NewPCG(seed, hash(k)))
		perm := slices.Clone(side)
		ge := 0
		for range perms {
			rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if separation(vals, perm) >= obs-1e-12 {
				ge++
			}
		}
		p := float64(1+ge) / float64(1+perms)
		res.Facts = append(res.Facts, Explanation{Fact: strings.TrimPrefix(k, cvarPrefix), A: joinSet(vals[:len(a)]), B: joinSet(vals[len(a):]),
			Separation: obs, P: p, Named: p <= alpha})
	}
	slices.SortStableFunc(res.Facts, func(x, y Explanation) int {
		switch {
		case x.Separation != y.Separation:
			if x.Separation > y.Separation {
				return -1
			}
			return 1
		case x.P != y.P:
			if x.P < y.P {
				return -1
			}
			return 1
		}
		return 0
	})
	return res
}

// Lines describes the result for people: the test, then each fact, the
// named ones first marked "*".
func (e ExplainResult) Lines() []string {
	out := []string{fmt.Sprintf("explain: %s; %d+%d mpiruns, %d permutations, seed %d, alpha %g (smallest attainable p %.3g)",
		e.Method, e.MpirunsA, e.MpirunsB, e.Permutations, e.Seed, e.Alpha, e.MinP)}
	named := 0
	for _, f := range e.Facts {
		mark := " "
		if f.Named {
			mark = "*"
			named++
		}
		out = append(out, fmt.Sprintf("%s %s: B %s (A %s): separation %.2f, p %.3g", mark, f.Fact, f.B, f.A, f.Separation, f.P))
	}
	if named == 0 {
		out = append(out, fmt.Sprintf("explain: no recorded difference separates the sides at alpha %g", e.Alpha))
	}
	return out
}

// separation is the share of mpiruns whose side the majority vote of
// their value predicts.
func separation(vals []string, side []bool) float64 {
	nb, na := map[string]int{}, map[string]int{}
	for i, v := range vals {
		if side[i] {
			nb[v]++
		} else {
			na[v]++
		}
	}
	right := 0
	seen := map[string]bool{}
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			right += max(na[v], nb[v])
		}
	}
	return float64(right) / float64(len(vals))
}

func isNil(r *Record) bool { return r == nil }

func joinSet(vs []string) string {
	s := slices.Clone(vs)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), " | ")
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// hash is FNV-1a of s, the second word of each fact's random stream.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// binom is C(n, k) as a float64.
func binom(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}
