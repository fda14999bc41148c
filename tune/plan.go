package tune

import (
	"fmt"

	"github.com/reprobench/reprobench/analysis"
)

// CampaignPlan is the size of a tuning campaign and why.
type CampaignPlan struct {
	// Tests is the size of the Holm family: the number of (cell,
	// non-default candidate) tests decided together.
	Tests int
	// MpirunsPerCandidate is the smallest number of mpiruns of each
	// candidate (the default included) at which the exact one-sided
	// rank-sum test can reach p ≤ Alpha/Tests, Holm's first step. Fewer
	// mpiruns can replace no default whatever the data.
	MpirunsPerCandidate int
	// Mpiruns is the campaign's total: MpirunsPerCandidate × candidates,
	// when each mpirun runs one candidate over every cell.
	Mpiruns int
	// MinP is the smallest attainable p with MpirunsPerCandidate per
	// side, and Level the level it must pass, Alpha/Tests.
	MinP, Level float64
	// Why is one sentence for the command's output.
	Why string
}

// Plan sizes a campaign of cells cells (call × size × np combinations)
// and candidates candidates per cell (the default included), decided
// with opt. The count is the minimum at which a decision is possible,
// not one that detects a given speed-up with a given power: with exactly
// that many, a candidate is chosen only if every one of its mpiruns is
// faster than every mpirun of the default by more than the threshold.
// It returns an error for fewer than 1 cell or 2 candidates, or invalid
// options.
func Plan(cells, candidates int, opt Options) (CampaignPlan, error) {
	opt = opt.withDefaults()
	if err := opt.check(); err != nil {
		return CampaignPlan{}, err
	}
	if cells < 1 || candidates < 2 {
		return CampaignPlan{}, fmt.Errorf("tune: plan needs at least 1 cell and 2 candidates (got %d, %d)", cells, candidates)
	}
	p := CampaignPlan{Tests: candidates - 1}
	if opt.Family == FamilyCampaign {
		p.Tests = cells * (candidates - 1)
	}
	p.Level = opt.Alpha / float64(p.Tests)
	k := analysis.MpirunsForP(p.Level)
	p.MpirunsPerCandidate = k
	p.Mpiruns = k * candidates
	p.MinP = analysis.MinRankSumP(k, k)
	prev := analysis.MinRankSumP(k-1, k-1)
	p.Why = fmt.Sprintf("%d mpiruns per candidate: Holm over a %s family of %d tests must pass alpha/%d = %.3g at its first step, "+
		"and the exact one-sided rank-sum test on per-mpirun medians reaches at best p = %.3g with %d+%d mpiruns (%.3g with %d+%d, too large)",
		k, opt.Family, p.Tests, p.Tests, p.Level, p.MinP, k, k, prev, k-1, k-1)
	return p, nil
}
