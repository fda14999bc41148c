package guidelines

import (
	"fmt"
	"slices"

	"github.com/reprobench/reprobench/design"
)

// Plan is a campaign that measures guidelines: every side of every
// guideline at every size, in Mpiruns mpiruns of Np ranks, each mpirun in
// its own random order (Hunold & Carpen-Amarie 2016, Alg. 5, design.FromList).
type Plan struct {
	Guidelines []Guideline
	SizesBytes []int  // the guidelines' sizes n (multiples of ElemBytes)
	Np         int    // ranks per mpirun (the p of the size mappings)
	Datatype   string // datatype column of the design, e.g. "float64"
	ElemBytes  int    // size of one element of Datatype
	Nrep       int    // observations per experiment (0: the run's default)
	Mpiruns    int    // paired mpiruns: the unit of the test
	Seed       uint64 // shuffles every mpirun (recorded in the design)
	Comments   []string
}

// Point is one side of a guideline at one size: what the engine measures.
type Point struct {
	Call       string
	MsizeBytes int
}

// At returns the two points of g at size n on p ranks with elements of
// elem bytes.
func (g Guideline) At(n, p, elem int) (lhs, rhs Point) {
	return Point{g.Lhs.Call, g.Lhs.Size.Bytes(n, p, elem)}, Point{g.Rhs.Call, g.Rhs.Size.Bytes(n, p, elem)}
}

// Check validates the plan.
func (p Plan) Check() error {
	switch {
	case len(p.Guidelines) == 0:
		return fmt.Errorf("guidelines: no guideline")
	case len(p.SizesBytes) == 0:
		return fmt.Errorf("guidelines: no size")
	case p.Np < 1:
		return fmt.Errorf("guidelines: np %d: need at least 1 rank", p.Np)
	case p.ElemBytes < 1:
		return fmt.Errorf("guidelines: element size %d bytes", p.ElemBytes)
	case p.Mpiruns < 1:
		return fmt.Errorf("guidelines: %d mpiruns: need at least 1 (and MinMpiruns to decide anything)", p.Mpiruns)
	case p.Nrep < 0:
		return fmt.Errorf("guidelines: negative nrep %d", p.Nrep)
	}
	for _, n := range p.SizesBytes {
		if n <= 0 || n%p.ElemBytes != 0 {
			return fmt.Errorf("guidelines: size %d bytes: want a positive multiple of the %d-byte element", n, p.ElemBytes)
		}
	}
	return nil
}

// Points returns the distinct points the plan measures, in a fixed order
// (sorted by call, then size): a side shared by several guidelines (such
// as MPI_Allreduce(n)) is measured once.
func (p Plan) Points() []Point {
	seen := map[Point]bool{}
	var pts []Point
	for _, g := range p.Guidelines {
		for _, n := range p.SizesBytes {
			l, r := g.At(n, p.Np, p.ElemBytes)
			for _, pt := range []Point{l, r} {
				if !seen[pt] {
					seen[pt] = true
					pts = append(pts, pt)
				}
			}
		}
	}
	slices.SortFunc(pts, func(a, b Point) int {
		if a.Call != b.Call {
			if a.Call < b.Call {
				return -1
			}
			return 1
		}
		return a.MsizeBytes - b.MsizeBytes
	})
	return pts
}

// Design returns the campaign's design: one experiment per point, in
// every mpirun, shuffled per mpirun with p.Seed (design.FromList).
func (p Plan) Design() (*design.Design, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	pts := p.Points()
	base := make([]design.Experiment, len(pts))
	for i, pt := range pts {
		base[i] = design.Experiment{Np: p.Np, Call: pt.Call, MsizeBytes: pt.MsizeBytes, Datatype: p.Datatype, Nrep: p.Nrep}
	}
	return design.FromList(base, p.Mpiruns, 1, p.Seed, p.Comments)
}
