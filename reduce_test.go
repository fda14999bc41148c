package reprobench

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/internal/completionref"
	"github.com/reprobench/reprobench/mpi"
)

// TestCompletionMatchesGathered: the reduced completion time equals the
// one the reference definitions compute from every rank's values
// (completionref.Local on durations, completionref.Global, completionref.Loop, the timing rank's
// duration), bit for bit for the maxima; the averages of osu and imb and
// the overlap columns within 1e-14 relative, since a reduction sums in
// its own order.
func TestCompletionMatchesGathered(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 51))
	calls := []mpi.Call{mpi.CallAllreduce, mpi.CallPingPong, mpi.CallBW, mpi.CallBcast}
	for _, p := range []int{1, 2, 3, 5, 16} {
		for _, rt := range []completion.Type{completion.Local, completion.Global, completion.Loop, completion.OSU, completion.IMB} {
			for _, call := range calls {
				if call.Op().CheckRanks(p) != nil {
					continue
				}
				for _, overlap := range []bool{false, true} {
					ex := &Experiment{Call: call, Runtime: rt, Root: p / 2}
					const reps = 3
					dur, gs, ge := make([]float64, p), make([]float64, p), make([]float64, p)
					pure, comp := make([]float64, p), make([]float64, p)
					var mx, sm []float64
					for r := range p {
						gs[r] = 1 + rng.Float64()*1e-5
						dur[r] = rng.Float64() * 1e-4
						ge[r] = gs[r] + dur[r] + rng.Float64()*1e-7
						pure[r], comp[r] = rng.Float64()*1e-4, rng.Float64()*1e-4
						c := newCompletion(ex, reps, p, r, overlap)
						m, s := make([]float64, c.nmax), make([]float64, c.nsum)
						c.contribute(m, s, dur[r], gs[r], ge[r], pure[r], comp[r])
						if r == 0 {
							mx, sm = m, s
							continue
						}
						for i := range m {
							mx[i] = math.Max(mx[i], m[i])
						}
						for i := range s {
							sm[i] += s[i]
						}
					}
					c := newCompletion(ex, reps, p, 0, overlap)
					got := c.runtime(mx, sm)
					var want float64
					exact := true
					switch rt {
					case completion.Global:
						want = completionref.Global(gs, ge)
					case completion.Local:
						want = completionref.Local(make([]float64, p), dur)
					default:
						if tm := call.Timer(ex.Root); tm >= 0 && rt != completion.Loop {
							want = dur[tm] / reps
							break
						}
						want = completionref.Loop(rt, dur, reps, call == mpi.CallPingPong, ex.Root)
						exact = rt == completion.Loop || call == mpi.CallPingPong
					}
					if exact && got != want || !exact && !near(got, want) {
						t.Errorf("p=%d %v %v overlap=%v: reduced %v, gathered %v", p, rt, call, overlap, got, want)
					}
					if !overlap {
						continue
					}
					var row Row
					c.overlapRow(&row, sm)
					var ps, cs, ts float64
					for r := range p {
						ps, cs, ts = ps+pure[r], cs+comp[r], ts+dur[r]
					}
					n := float64(p * reps)
					if !near(row.PureS, ps/n) || !near(row.ComputeS, cs/n) || !near(row.TotalS, ts/n) {
						t.Errorf("p=%d %v %v: overlap columns %g %g %g, gathered %g %g %g", p, rt, call, row.PureS, row.ComputeS, row.TotalS, ps/n, cs/n, ts/n)
					}
				}
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-14*math.Max(math.Abs(a), math.Abs(b)) }
