package tune

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// Source says where decisions came from; the writers put it in every
// file they write.
type Source struct {
	// Files are the raw data files read.
	Files []string `json:"files"`
	// Column is the raw-data column that named the candidate.
	Column string `json:"column"`
	// Library is the MPI library the campaign ran, e.g. "Open MPI 4.1.4".
	Library string `json:"library,omitempty"`
}

// OpenMPIAlgorithm is how Open MPI's coll_tuned component runs one
// candidate: the value of coll_tuned_<coll>_algorithm (0 = the
// component's fixed decision), and the fan-in/out and segment size of
// the rule (0 = the algorithm's own).
type OpenMPIAlgorithm struct {
	ID, FanInOut, SegSize int
}

// OpenMPIResolver maps a candidate of a call to Open MPI's algorithm; the
// catalogue of the library's algorithms provides it. It is not asked for
// the default, which is always ID 0.
type OpenMPIResolver func(call, candidate string) (OpenMPIAlgorithm, error)

// openMPICollID is Open MPI 4.1's COLLTYPE of the calls whose dynamic
// rules take the per-process message size (count × type size), the
// size a Sample carries (coll_tuned_decision_dynamic.c).
var openMPICollID = map[string]int{
	"MPI_Allreduce": 2,
	"MPI_Bcast":     7,
	"MPI_Reduce":    11,
}

// WriteOpenMPIRules writes ds as an Open MPI 4.1 coll_tuned dynamic rules
// file (the classic format that coll_tuned_dynamic_rules_filename names;
// load it with coll_tuned_use_dynamic_rules=1). For each call, process
// count and measured size it writes one rule: the chosen candidate's
// algorithm, or algorithm 0 (the fixed decision, the library's own
// default) where the default is kept. A measured size's rule holds from
// that size up to the next measured size; below the smallest and above
// the largest measured size, and for process counts not measured, the
// rules say 0, so the library decides as without the file. Every rule
// carries, as a comment, its cell's candidates with their time-ratio
// intervals and p-values; the header names src. Only MPI_Allreduce,
// MPI_Bcast and MPI_Reduce are written (other calls are an error: their
// rules use other size conventions).
func WriteOpenMPIRules(w io.Writer, ds []Decision, resolve OpenMPIResolver, src Source) error {
	byCall := map[string][]Decision{}
	for _, d := range ds {
		if _, ok := openMPICollID[d.Call]; !ok {
			return fmt.Errorf("tune: Open MPI rules: %s is not one of MPI_Allreduce, MPI_Bcast, MPI_Reduce", d.Call)
		}
		byCall[d.Call] = append(byCall[d.Call], d)
	}
	calls := make([]string, 0, len(byCall))
	for c := range byCall {
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(a, b string) int { return openMPICollID[a] - openMPICollID[b] })
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("# Open MPI coll_tuned dynamic rules, written by reprobench's tune package.\n")
	p("# Load: --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename THIS_FILE\n")
	writeSourceComment(bw, "# ", ds, src)
	p("%d # collectives\n", len(calls))
	for _, call := range calls {
		cds := byCall[call]
		slices.SortFunc(cds, func(a, b Decision) int { return a.Cell.compare(b.Cell) })
		nps := []int{}
		for _, d := range cds {
			if !slices.Contains(nps, d.Np) {
				nps = append(nps, d.Np)
			}
		}
		type comRule struct {
			np   int
			msgs []Decision // nil: fixed decision for every size
		}
		var rules []comRule
		last := -1
		for _, np := range nps {
			if np > last+1 {
				rules = append(rules, comRule{np: last + 1})
			}
			var msgs []Decision
			for _, d := range cds {
				if d.Np == np {
					msgs = append(msgs, d)
				}
			}
			rules = append(rules, comRule{np: np, msgs: msgs})
			last = np
		}
		rules = append(rules, comRule{np: last + 1})
		p("%d # collective id: %s\n", openMPICollID[call], call)
		p("%d # communicator sizes\n", len(rules))
		for _, r := range rules {
			if r.msgs == nil {
				p("%d # from %d processes: no rule of this file\n1\n0 0 0 0 # any size: fixed decision\n", r.np, r.np)
				continue
			}
			n := len(r.msgs) + 1
			if r.msgs[0].Bytes > 0 {
				n++
			}
			p("%d # %d processes\n%d # message sizes\n", r.np, r.np, n)
			if r.msgs[0].Bytes > 0 {
				p("0 0 0 0 # below %d B: fixed decision\n", r.msgs[0].Bytes)
			}
			for _, d := range r.msgs {
				a := OpenMPIAlgorithm{}
				if d.Chosen != d.Default {
					var err error
					if a, err = resolve(d.Call, d.Chosen); err != nil {
						return fmt.Errorf("tune: Open MPI rules: %s: %w", d.Cell, err)
					}
				}
				p("%d %d %d %d # %s: %s\n", d.Bytes, a.ID, a.FanInOut, a.SegSize, d.Cell, decisionLine(d))
			}
			p("%d 0 0 0 # above %d B: fixed decision\n", r.msgs[len(r.msgs)-1].Bytes+1, r.msgs[len(r.msgs)-1].Bytes)
		}
	}
	return bw.Flush()
}

// writeSourceComment writes the method and src as comment lines.
func writeSourceComment(w io.Writer, prefix string, ds []Decision, src Source) {
	if len(ds) > 0 {
		d := ds[0]
		fmt.Fprintf(w, "%sMethod: per-mpirun medians; one-sided Wilcoxon rank-sum of H0 default/candidate <= 1+%g, Holm over a %s family of %d tests at alpha %g; ratio = Hodges-Lehmann candidate/default time with its interval.\n",
			prefix, d.Threshold, d.Family, d.FamilySize, d.Alpha)
	}
	if src.Library != "" {
		fmt.Fprintf(w, "%sLibrary measured: %s\n", prefix, src.Library)
	}
	fmt.Fprintf(w, "%sCandidate column: %s\n", prefix, src.Column)
	for _, f := range src.Files {
		fmt.Fprintf(w, "%sData: %s\n", prefix, f)
	}
}

// decisionLine is a one-line account of a decision for a comment: the
// choice, then each candidate's ratio interval and Holm p.
func decisionLine(d Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s; default %d mpiruns, median %s)", d.Chosen, d.Verdict, d.DefaultN, fmtS(d.DefaultMedian.Seconds()))
	for _, c := range d.Candidates {
		fmt.Fprintf(&b, "; %s ratio %s [%s, %s] p_holm %s n %d", c.Name, analysis.FormatRatio(c.Ratio),
			analysis.FormatRatio(c.RatioCI.Lo), analysis.FormatRatio(c.RatioCI.Hi), fmtP(c.PHolm), c.N)
	}
	return b.String()
}

func fmtP(p float64) string {
	if math.IsNaN(p) {
		return "NA"
	}
	return fmt.Sprintf("%.3g", p)
}

// fmtS renders seconds with a unit and 3 significant digits.
func fmtS(s float64) string {
	switch {
	case math.IsNaN(s):
		return "NA"
	case s < 1e-6:
		return fmt.Sprintf("%.3gns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.3gus", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.3gms", s*1e3)
	}
	return fmt.Sprintf("%.3gs", s)
}
