package design

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/reprobench/reprobench/factor"
)

// Factor is a user factor: a name (the label key) and its levels.
type Factor struct {
	Name   string
	Levels []string
}

// Factors are the levels of each factor of a full factorial design. An
// empty list leaves the column empty, i.e. the run's flag default (one
// level).
type Factors struct {
	Nps         []int
	Calls       []string
	MsizesBytes []int
	Datatypes   []string
	Nreps       []int
	Labels      []Factor
	// Levels are the levels of the factor table's rows that have a design
	// column (package factor, factor.DesignColumns: the method factors and
	// the call parameters), by factor.ID, each written as a design file's
	// cell ("window", "0.0001", "on", "lock") and read as Read reads the
	// cell, by its row's kind, so that a new row needs no field here. A
	// seconds level must be positive (0 is the run's level).
	Levels [factor.NumIDs][]string
}

// beforeLabels are the factor table's rows whose mixed-radix digits
// follow nrep's and precede the labels', in this order, as they did before
// the table; the other design columns follow the labels in design order
// (afterLabels), so that designs that leave them empty keep their order
// and a new row's digit comes last.
var beforeLabels = []factor.ID{factor.ProcSync, factor.Window, factor.ClockSync, factor.RuntimeType, factor.Cache,
	factor.Skew, factor.BWWindow, factor.RMASync}

// afterLabels are the design columns whose digits follow the labels', in
// design order (noise_guard, in_place, root_shift, buf_offset, …).
var afterLabels = slices.DeleteFunc(factor.DesignColumns(), func(id factor.ID) bool { return slices.Contains(beforeLabels, id) })

// MaxRows bounds the rows of a generated design: Generate refuses larger
// plans before allocating anything, and ParseSizes refuses specs with more
// sizes. A generated row takes about 400 bytes while the design is built
// and written, so MaxRows rows stay under half a GB; a campaign of that
// many experiments would run for days.
const MaxRows = 1_000_000

// Points returns the number of factor combinations of the full factorial
// (saturating at math.MaxInt).
func (f Factors) Points() int {
	n := 1
	for _, l := range f.lens() {
		n = mulSat(n, max(l, 1))
	}
	return n
}

// pointsString renders Points, with "more than 9223372036854775807"
// when it saturated.
func (f Factors) pointsString() string {
	if n := f.Points(); n < math.MaxInt {
		return strconv.Itoa(n)
	}
	return "more than " + strconv.Itoa(math.MaxInt-1)
}

// mulSat returns a·b for a, b ≥ 0, or math.MaxInt if that overflows.
func mulSat(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

// Rows returns the number of rows Generate makes of p (combinations ×
// replicates × mpiruns) and whether it is within MaxRows; it never
// overflows, so a plan of absurd size is refused, not wrapped around.
func (p Plan) Rows() (int, bool) {
	n := mulSat(mulSat(p.Factors.Points(), max(p.Replicates, 1)), max(p.Mpiruns, 1))
	return n, n <= MaxRows
}

// labelDigit is the mixed-radix digit of the first label (see lens).
var labelDigit = 5 + len(beforeLabels)

func (f Factors) lens() []int {
	// Digits 0–4 are np, call, msize_bytes, datatype and nrep, then
	// beforeLabels, one per label (labelDigit), and last afterLabels. A
	// factor without levels has one digit value, so adding one never
	// reorders designs that leave it empty.
	ls := []int{len(f.Nps), len(f.Calls), len(f.MsizesBytes), len(f.Datatypes), len(f.Nreps)}
	for _, id := range beforeLabels {
		ls = append(ls, len(f.Levels[id]))
	}
	for _, u := range f.Labels {
		ls = append(ls, len(u.Levels))
	}
	for _, id := range afterLabels {
		ls = append(ls, len(f.Levels[id]))
	}
	return ls
}

// Plan is what Generate needs: the factors, how many mpiruns, how many
// replicates of each combination per mpirun, and the seed.
type Plan struct {
	Factors Factors
	// Mpiruns is the number of mpiruns (at least 1); every combination is
	// measured in every mpirun (Hunold & Carpen-Amarie 2016, §5.2, Alg. 5).
	Mpiruns int
	// Replicates is how often each combination runs per mpirun (0 means
	// 1), each time with Nrep observations, at a random place in the
	// order.
	Replicates int
	// Seed determines the order of every mpirun (PCG(Seed, mpirun)).
	Seed uint64
	// Comments are written into the design file (for example the
	// command line that generated it).
	Comments []string
}

// Generate returns the full factorial design of p: every combination of
// the levels of p.Factors, p.Replicates times, in each of p.Mpiruns
// mpiruns, shuffled independently per mpirun (Hunold & Carpen-Amarie 2016, Alg. 5, line 15)
// by Fisher–Yates from PCG(p.Seed, mpirun). Combinations are numbered in
// lexicographic order of the levels, np outermost, then call,
// msize_bytes, datatype, nrep, the factor table's rows of beforeLabels,
// the user labels, and the other design columns (afterLabels) innermost;
// experiment numbers are
// combination·replicates + replicate, so they are the same in every
// mpirun. The design records p.Seed.
func Generate(p Plan) (*Design, error) {
	if p.Mpiruns < 1 {
		return nil, fmt.Errorf("design: %d mpiruns; need at least 1", p.Mpiruns)
	}
	reps := max(p.Replicates, 1)
	if err := p.Factors.check(); err != nil {
		return nil, err
	}
	rows, ok := p.Rows()
	if !ok {
		return nil, fmt.Errorf("design: %s combinations × %d replicates × %d mpiruns is more than %d rows (MaxRows)", p.Factors.pointsString(), reps, p.Mpiruns, MaxRows)
	}
	points := p.Factors.Points()
	base := make([]Experiment, points)
	for i := range base {
		base[i] = p.Factors.point(i)
	}
	d := &Design{Seed: p.Seed, HasSeed: true, Comments: p.Comments, Experiments: make([]Experiment, 0, rows)}
	for m := 0; m < p.Mpiruns; m++ {
		d.Experiments = appendMpirun(d.Experiments, base, reps, p.Seed, m)
	}
	return d, nil
}

// MpirunOrder returns the experiments of mpirun m of the design Generate
// makes of p, in execution order, without generating the other mpiruns
// (p.Mpiruns is ignored). "reprobench run --seed S" uses it, so that its
// order is that of "reprobench design --seed S" for the same factors.
func MpirunOrder(p Plan, m int) ([]Experiment, error) {
	if m < 0 {
		return nil, fmt.Errorf("design: mpirun %d is negative", m)
	}
	if err := p.Factors.check(); err != nil {
		return nil, err
	}
	reps := max(p.Replicates, 1)
	points := p.Factors.Points()
	one := p
	one.Mpiruns = 1
	if _, ok := one.Rows(); !ok {
		return nil, fmt.Errorf("design: %s combinations × %d replicates is more than %d rows (MaxRows)", p.Factors.pointsString(), reps, MaxRows)
	}
	base := make([]Experiment, points)
	for i := range base {
		base[i] = p.Factors.point(i)
	}
	return appendMpirun(nil, base, reps, p.Seed, m), nil
}

// appendMpirun appends mpirun m: the combinations of base, reps times
// each, shuffled by Fisher–Yates from PCG(seed, m) (Hunold & Carpen-Amarie 2016, Alg. 5).
func appendMpirun(out, base []Experiment, reps int, seed uint64, m int) []Experiment {
	order := make([]int, len(base)*reps)
	for i := range order {
		order[i] = i
	}
	src := newSource(seed, uint64(m))
	src.shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, id := range order {
		e := base[id/reps]
		e.Mpirun, e.Exp = m, id
		if e.Labels != nil {
			l := make(map[string]string, len(e.Labels))
			for k, v := range e.Labels {
				l[k] = v
			}
			e.Labels = l
		}
		out = append(out, e)
	}
	return out
}

// point returns combination i of the factorial (mixed-radix digits, the
// last factor varying fastest).
func (f Factors) point(i int) Experiment {
	ls := f.lens()
	digits := make([]int, len(ls))
	for k := len(ls) - 1; k >= 0; k-- {
		r := max(ls[k], 1)
		digits[k] = i % r
		i /= r
	}
	var e Experiment
	if len(f.Nps) > 0 {
		e.Np = f.Nps[digits[0]]
	}
	if len(f.Calls) > 0 {
		e.Call = f.Calls[digits[1]]
	}
	if len(f.MsizesBytes) > 0 {
		e.MsizeBytes = f.MsizesBytes[digits[2]]
	}
	if len(f.Datatypes) > 0 {
		e.Datatype = f.Datatypes[digits[3]]
	}
	if len(f.Nreps) > 0 {
		e.Nrep = f.Nreps[digits[4]]
	}
	set := func(id factor.ID, digit int) {
		if l := f.Levels[id]; len(l) > 0 {
			if err := setCell(&e.Factors, id.Row(), l[digits[digit]], Vocabulary{}); err != nil {
				panic(err) // checked by Generate
			}
		}
	}
	for k, id := range beforeLabels {
		set(id, 5+k)
	}
	for k, u := range f.Labels {
		if len(u.Levels) > 0 {
			if e.Labels == nil {
				e.Labels = map[string]string{}
			}
			e.Labels[u.Name] = u.Levels[digits[labelDigit+k]]
		}
	}
	for k, id := range afterLabels {
		set(id, labelDigit+len(f.Labels)+k)
	}
	return e
}

// check rejects levels a design file cannot represent or that repeat.
func (f Factors) check() error {
	ints := func(name string, l []int) error {
		seen := map[int]bool{}
		for _, v := range l {
			if v < 1 {
				return fmt.Errorf("design: %s level %d: must be positive (0 means the run's default)", name, v)
			}
			if seen[v] {
				return fmt.Errorf("design: %s level %d listed twice", name, v)
			}
			seen[v] = true
		}
		return nil
	}
	strs := func(name string, l []string) error {
		seen := map[string]bool{}
		for _, v := range l {
			if v == "" {
				return fmt.Errorf("design: %s: empty level (leave the list empty for the run's default)", name)
			}
			for _, c := range v {
				if c == '\n' || c == '\r' {
					return fmt.Errorf("design: %s level %q contains a line break", name, v)
				}
			}
			if seen[v] {
				return fmt.Errorf("design: %s level %q listed twice", name, v)
			}
			seen[v] = true
		}
		return nil
	}
	errs := []error{
		ints("np", f.Nps), strs("call", f.Calls), ints("msize_bytes", f.MsizesBytes),
		strs("datatype", f.Datatypes), ints("nrep", f.Nreps),
	}
	for id, l := range f.Levels {
		row := factor.ID(id).Row()
		if len(l) > 0 && !slices.Contains(factor.DesignColumns(), row.ID) {
			errs = append(errs, fmt.Errorf("design: %s has no design column", row.Name))
			continue
		}
		if err := strs(row.Name, l); err != nil {
			errs = append(errs, err)
			continue
		}
		seen := map[string]bool{}
		for _, v := range l {
			var x factor.Values // read as a design file's cell is
			if err := setCell(&x, row, v, Vocabulary{}); err != nil {
				errs = append(errs, fmt.Errorf("design: %s level %s: %v", row.Name, v, err))
				continue
			}
			if !x.Has(row.ID) {
				errs = append(errs, fmt.Errorf("design: %s level %s: must be positive (0 means the run's default)", row.Name, v))
				continue
			}
			c := x.Cell(row.ID)
			if seen[c] {
				errs = append(errs, fmt.Errorf("design: %s level %s listed twice", row.Name, c))
			}
			seen[c] = true
		}
	}
	names := map[string]bool{}
	for _, u := range f.Labels {
		if err := checkLabelKey(u.Name); err != nil {
			errs = append(errs, fmt.Errorf("design: factor: %v", err))
		}
		if names[u.Name] {
			errs = append(errs, fmt.Errorf("design: factor %q given twice", u.Name))
		}
		names[u.Name] = true
		if len(u.Levels) == 0 {
			errs = append(errs, fmt.Errorf("design: factor %q has no levels", u.Name))
		}
		errs = append(errs, strs("factor "+strconv.Quote(u.Name), u.Levels))
	}
	return errors.Join(errs...)
}
