package design

import "fmt"

// FromList returns the design that measures the experiments of base (a
// list, not a full factorial) in each of mpiruns mpiruns, replicates times
// each (0 means 1), shuffled independently per mpirun exactly as Generate
// shuffles (Hunold & Carpen-Amarie 2016, Alg. 5: Fisher–Yates from PCG(seed, mpirun)).
// Experiment numbers are index·replicates + replicate, the same in every
// mpirun; the Mpirun and Exp fields of base are ignored. The design records
// seed. Package guidelines builds its campaigns with it: only the pairs
// (call, size) that the guidelines compare, not every call at every size.
func FromList(base []Experiment, mpiruns, replicates int, seed uint64, comments []string) (*Design, error) {
	if len(base) == 0 {
		return nil, fmt.Errorf("design: no experiments")
	}
	if mpiruns < 1 {
		return nil, fmt.Errorf("design: %d mpiruns; need at least 1", mpiruns)
	}
	reps := max(replicates, 1)
	rows := mulSat(mulSat(len(base), reps), mpiruns)
	if rows > MaxRows {
		return nil, fmt.Errorf("design: %d experiments × %d replicates × %d mpiruns is more than %d rows (MaxRows)", len(base), reps, mpiruns, MaxRows)
	}
	d := &Design{Seed: seed, HasSeed: true, Comments: comments, Experiments: make([]Experiment, 0, rows)}
	for m := 0; m < mpiruns; m++ {
		d.Experiments = appendMpirun(d.Experiments, base, reps, seed, m)
	}
	return d, nil
}
