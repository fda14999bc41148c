package campaign

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// MpirunFactor varies one factor of scope per mpirun (package factor's
// PerMpirun rows: the collective algorithm) across a campaign's mpiruns:
// each mpirun gets one level, set through its environment before
// MPI_Init.
type MpirunFactor struct {
	// Factor is the raw column ("algorithm").
	Factor string `json:"factor"`
	// Env is the environment variable that carries the level's name to
	// the run (factor.Factor.Env), which writes it in the column.
	Env string `json:"env"`
	// Levels are the levels, each at least once; their names differ.
	Levels []MpirunLevel `json:"levels"`
}

// MpirunLevel is one level of an MpirunFactor.
type MpirunLevel struct {
	// Name is the level written in the raw column ("ring+segsize=1024").
	Name string `json:"name"`
	// Env are the settings that select it, "NAME=value": the library's
	// control variables, and what the run must read back through MPI_T
	// after its measurements (provenance.ExpectEnv).
	Env []string `json:"env,omitempty"`
}

// check refuses a factor without levels, with repeated or empty names,
// or settings that are not NAME=value, and a number of mpiruns that is
// not a multiple of the number of levels (every level as often).
func (f *MpirunFactor) check(mpiruns int) error {
	if f.Factor == "" || f.Env == "" || len(f.Levels) == 0 {
		return fmt.Errorf("campaign: per-mpirun factor %q: needs a column, an environment variable and levels", f.Factor)
	}
	seen := map[string]bool{}
	for _, l := range f.Levels {
		if l.Name == "" || seen[l.Name] || strings.ContainsAny(l.Name, ",\"\n") {
			return fmt.Errorf("campaign: %s: level %q empty, repeated, or not a CSV cell", f.Factor, l.Name)
		}
		seen[l.Name] = true
		for _, kv := range l.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				return fmt.Errorf("campaign: %s %s: setting %q: want NAME=value", f.Factor, l.Name, kv)
			}
		}
	}
	if mpiruns%len(f.Levels) != 0 {
		return fmt.Errorf("campaign: %d mpiruns for %d levels of %s: want a multiple of %d, so that every level gets as many mpiruns",
			mpiruns, len(f.Levels), f.Factor, len(f.Levels))
	}
	return nil
}

// assignStream is the random stream of AssignLevels (PCG's second word),
// so that its draws do not repeat those of the mpiruns' seeds.
const assignStream = 0x70657231 // "per1"

// AssignLevels returns the level of each of mpiruns mpiruns, randomized
// and interleaved: mpiruns are taken in blocks of len(levels), and each
// block runs every level once in an order drawn from seed (a randomized
// complete block design over time, so that a drift of the machine during
// the campaign falls on every level alike). mpiruns must be a multiple of
// levels; it panics otherwise.
func AssignLevels(levels, mpiruns int, seed uint64) []int {
	if levels < 1 || mpiruns%levels != 0 {
		panic(fmt.Sprintf("campaign: AssignLevels(%d, %d): want a multiple of the levels", levels, mpiruns))
	}
	rng := rand.New(rand.NewPCG(seed, assignStream))
	out := make([]int, 0, mpiruns)
	for len(out) < mpiruns {
		out = append(out, rng.Perm(levels)...)
	}
	return out
}

// mpirunEnv returns the environment additions of level l of f.
func (f *MpirunFactor) mpirunEnv(l MpirunLevel) []string {
	return slices.Clip(append([]string{f.Env + "=" + l.Name}, l.Env...))
}
