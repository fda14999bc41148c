package tune

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// SimConfig describes synthetic tuning campaigns for
// SimulateFalseDecisions. Every candidate has the same run-time model,
// except that the default's times are multiplied by DefaultFactor.
type SimConfig struct {
	// Seed seeds the whole simulation (PCG, with Seed and a constant).
	Seed uint64
	// Campaigns is the number of campaigns simulated.
	Campaigns int
	// Cells is the number of cells per campaign; Candidates the number of
	// candidates per cell, the default included (≥ 2).
	Cells, Candidates int
	// Mpiruns is the number of mpiruns per candidate; 0 takes Plan's.
	Mpiruns int
	// PHigh is the probability that an mpirun runs in the slow mode; in
	// it every cell of that mpirun is HighLo to HighHi times slower
	// (uniform, drawn once per mpirun). This VM's 1 MiB allreduce read
	// about 270 µs in some mpiruns and 950–1260 µs in others, a factor of
	// 3.5–4.7.
	PHigh, HighLo, HighHi float64
	// Spread is the standard deviation of the log of a per-mpirun median
	// around its mode (0.03: about 3 %), drawn per mpirun and cell.
	Spread float64
	// DefaultFactor multiplies the default's times: 1 for identical
	// candidates (every replacement is a false decision), above 1 for a
	// default that is truly slower (a positive control).
	DefaultFactor float64
	// Opt configures Decide.
	Opt Options
}

// SimResult counts the replacements of SimulateFalseDecisions.
type SimResult struct {
	Campaigns int
	// Replacing is the number of campaigns with at least one replaced
	// default; Rate = Replacing/Campaigns and Upper the upper end of its
	// two-sided 95 % Clopper-Pearson interval.
	Replacing   int
	Rate, Upper float64
	// Cells and ReplacedCells count over all campaigns' cells.
	Cells, ReplacedCells int
	// Mpiruns is the number of mpiruns per candidate used.
	Mpiruns int
}

// String renders the result in one line.
func (r SimResult) String() string {
	return fmt.Sprintf("%d of %d campaigns replaced a default (rate %.4f, 95%% Clopper-Pearson upper bound %.4f); %d of %d cells; %d mpiruns per candidate",
		r.Replacing, r.Campaigns, r.Rate, r.Upper, r.ReplacedCells, r.Cells, r.Mpiruns)
}

// SimulateFalseDecisions simulates cfg.Campaigns campaigns: each mpirun
// runs one candidate over all cells, the candidates take turns, and each
// mpirun draws its mode (slow with probability PHigh, the same for all
// its cells) and each cell's log-normal spread; the per-mpirun medians go
// through Decide with cfg.Opt. With DefaultFactor 1 every replacement is
// a false decision, and Holm's correction over the campaign bounds the
// rate of campaigns with any replacement by Opt.Alpha, modes or not. It
// returns an error for an invalid configuration.
func SimulateFalseDecisions(cfg SimConfig) (SimResult, error) {
	if cfg.Campaigns < 1 || cfg.Cells < 1 || cfg.Candidates < 2 {
		return SimResult{}, fmt.Errorf("tune: simulation needs ≥ 1 campaign, ≥ 1 cell, ≥ 2 candidates")
	}
	if !(cfg.PHigh >= 0 && cfg.PHigh <= 1) || !(cfg.HighLo >= 1 && cfg.HighHi >= cfg.HighLo) || !(cfg.Spread >= 0) || !(cfg.DefaultFactor > 0) {
		return SimResult{}, fmt.Errorf("tune: simulation model out of range (PHigh in [0,1], 1 ≤ HighLo ≤ HighHi, Spread ≥ 0, DefaultFactor > 0)")
	}
	opt := cfg.Opt.withDefaults()
	k := cfg.Mpiruns
	if k == 0 {
		p, err := Plan(cfg.Cells, cfg.Candidates, opt)
		if err != nil {
			return SimResult{}, err
		}
		k = p.MpirunsPerCandidate
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7475_6e65))
	names := make([]string, cfg.Candidates)
	names[0] = opt.Default
	for i := 1; i < cfg.Candidates; i++ {
		names[i] = fmt.Sprintf("alias%d", i)
	}
	// Each cell has its own base time, log-uniform over 1 µs – 1 ms.
	base := make([]float64, cfg.Cells)
	res := SimResult{Campaigns: cfg.Campaigns, Mpiruns: k}
	samples := make([]Sample, 0, cfg.Cells*cfg.Candidates*k)
	for range cfg.Campaigns {
		for c := range base {
			base[c] = math.Exp(math.Log(1e-6) + rng.Float64()*math.Log(1e3))
		}
		samples = samples[:0]
		mpirun := 0
		for range k {
			for _, j := range rng.Perm(cfg.Candidates) {
				mode := 1.0
				if rng.Float64() < cfg.PHigh {
					mode = cfg.HighLo + rng.Float64()*(cfg.HighHi-cfg.HighLo)
				}
				f := 1.0
				if j == 0 {
					f = cfg.DefaultFactor
				}
				for c, b := range base {
					t := b * mode * f * math.Exp(cfg.Spread*rng.NormFloat64())
					samples = append(samples, Sample{Call: "MPI_Sim", Bytes: int64(c), Np: 2, Candidate: names[j], Mpirun: mpirun, Median: duration(t)})
				}
				mpirun++
			}
		}
		ds, err := Decide(samples, opt)
		if err != nil {
			return SimResult{}, err
		}
		any := false
		for _, d := range ds {
			res.Cells++
			if d.Verdict == Replaced {
				res.ReplacedCells++
				any = true
			}
		}
		if any {
			res.Replacing++
		}
	}
	res.Rate = float64(res.Replacing) / float64(res.Campaigns)
	res.Upper = clopperPearsonUpper(res.Replacing, res.Campaigns, 0.95)
	return res, nil
}

// clopperPearsonUpper returns the upper end of the two-sided
// Clopper-Pearson interval at level for x successes in n trials: the
// (1+level)/2 quantile of Beta(x+1, n−x), and 1 when x = n. It panics
// when x is not in [0, n] or level is not in (0, 1).
func clopperPearsonUpper(x, n int, level float64) float64 {
	if x < 0 || x > n || !(level > 0 && level < 1) {
		panic(fmt.Sprintf("tune: clopperPearsonUpper(%d, %d, %g): want 0 ≤ x ≤ n and level in (0, 1)", x, n, level))
	}
	if x == n {
		return 1
	}
	return distuv.Beta{Alpha: float64(x + 1), Beta: float64(n - x)}.Quantile((1 + level) / 2)
}
