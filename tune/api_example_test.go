package tune_test

import (
	"fmt"

	"github.com/reprobench/reprobench/tune"
)

// SimulateFalseDecisions checks the decision rule on synthetic campaigns
// whose candidates are one algorithm under several names (DefaultFactor
// 1), here 50 campaigns of 18 cells with this VM's mode flips: half of
// the mpiruns 3.5–4.7 times slower. Plan gives the campaign's size, the
// Holm family (FamilyCampaign, the default) its tests; a cell's Verdict is
// Kept, Replaced or TooFew.
func ExampleSimulateFalseDecisions() {
	opt := tune.Options{Family: tune.FamilyCampaign}
	var plan tune.CampaignPlan
	plan, _ = tune.Plan(18, 3, opt)
	cfg := tune.SimConfig{Seed: 1, Campaigns: 50, Cells: 18, Candidates: 3, Mpiruns: plan.MpirunsPerCandidate,
		PHigh: 0.5, HighLo: 3.5, HighHi: 4.7, Spread: 0.03, DefaultFactor: 1, Opt: opt}
	var r tune.SimResult
	r, err := tune.SimulateFalseDecisions(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Tests, "tests,", plan.MpirunsPerCandidate, "mpiruns per candidate")
	fmt.Println(r.Replacing, "of", r.Campaigns, "campaigns replaced a default")
	for _, v := range []tune.Verdict{tune.Kept, tune.Replaced, tune.TooFew} {
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output:
	// 36 tests, 6 mpiruns per candidate
	// 0 of 50 campaigns replaced a default
	// kept replaced too-few-mpiruns
}

// A catalogue lists each collective's algorithms and the control
// variables that select them; a resolver maps a candidate to what the
// library's decision file names.
func ExampleCatalog() {
	c := tune.CatalogFor(tune.OpenMPI)
	var col *tune.Collective = c.Collective("MPI_Allreduce")
	var a tune.Algorithm = col.Algorithms[1]
	var common []tune.Setting = col.Common
	fmt.Println(col.Call, col.Env, a.Name, len(common) > 0)
	var resolve tune.OpenMPIResolver
	resolve, err := c.OpenMPIResolver()
	if err != nil {
		fmt.Println(err)
		return
	}
	var alg tune.OpenMPIAlgorithm
	alg, err = resolve("MPI_Allreduce", a.Name)
	fmt.Println(alg.ID, err)
	var mresolve tune.MPICHResolver
	mresolve, err = tune.CatalogFor(tune.MPICH).MPICHResolver()
	if err != nil {
		fmt.Println(err)
		return
	}
	fn, err := mresolve("MPI_Allreduce", "recursive_doubling")
	fmt.Println(fn, err)
	// Output:
	// MPI_Allreduce OMPI_MCA_coll_tuned_allreduce_algorithm nonoverlapping true
	// 2 <nil>
	// MPIR_Allreduce_intra_recursive_doubling <nil>
}
