// Command report turns bench/fidelity/run.sh's output into the fidelity
// tables: reprobench next to the program a user would check it against
// (a plain C loop, OSU, IMB, ReproMPI), in alternating pairs of mpiruns.
//
//	go -C bench run ./fidelity/report [-gap 1.3] OUT [OUT ...]
//	go -C bench run ./fidelity/report -value KIND [-bytes N] FILE
//	go -C bench run ./fidelity/report -rounds FILE
//
// It reads OUT/runs.csv, one line per launch in launch order:
//
//	flavor,cell,target,bytes,pair,side,kind,file,load1
//
// side is "base" (the program we are compared with) or "ours"; kind says
// how the file becomes the run's value (parse.go); target is the cell's
// acceptance rule:
//
//	cloop  median per-pair ratio ≤ 1.05 with the upper end of its 95 %
//	       interval ≤ 1.10, over all pairs and in each mode that both sides
//	       show
//	tool   median per-pair ratio in [0.95, 1.05] over ≥ 15 pairs
//	diff   the median per-pair difference ours − base within ±5 (percentage
//	       points: OSU's overlap)
//	info   no verdict
//
// Every pair is counted: a run whose output is missing or unreadable is an
// error, never a pair left out. Each side's runs are classified into modes
// from their own values (modes.go: sorted, a new mode wherever a value
// exceeds the one before it by more than -gap; a run alone between two gaps
// joins its neighbour, since one run per side is no state that a ratio
// could be judged in, and it still counts in every pair and in the range);
// modes are matched in order
// (the fastest of each side, then the next), and per mode the report gives
// the median per-pair ratio of the pairs whose two runs are both in that
// mode and, from all runs of that mode on either side, the Hodges–Lehmann
// ratio with its rank-sum interval. How many runs of each side fell into
// each mode, and Fisher's exact test of whether one side is slow more
// often, come with it.
//
// Given several OUTs (runs of run.sh with the same parts), it pools them:
// each cell's pairs are those of every run (pair k of the i-th OUT, i from
// 0, is pair i·pairStride + k), so that a ratio's interval is that of all pairs, as
// docs/measured.md gives it beside the runs one by one.
//
// With -value it reads one run's FILE the way the tables read it (the
// kinds of parse.go; -bytes selects the row of OSU's and IMB's tables) and
// prints its value, so that bench/fidelity/rounds.sh reads a run as the
// tables do. With -rounds it reads the runs.txt of bench/fidelity/rounds.sh
// (rounds.go) and prints each command's ratio to the first with the
// statistics of the tables.
//
// The exit status is 1 when a cell with a target misses it.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

func main() {
	gap := flag.Float64("gap", 1.3, "factor between consecutive sorted run values that starts a new mode")
	kind := flag.String("value", "", "print the value of one run's FILE read as `KIND` (median, col:NAME, osu:COLUMN, …; parse.go) instead of the tables")
	bytes := flag.Int("bytes", 8, "with -value: the message size whose row an osu: or imb: KIND reads")
	roundsFile := flag.String("rounds", "", "print the table of bench/fidelity/rounds.sh's runs.txt `FILE` (each command's ratio to the first) instead of the tables")
	flag.Usage = func() {
		out := flag.CommandLine.Output()
		fmt.Fprintln(out, "usage: report [-gap 1.3] OUT [OUT ...]   (OUT: the directory of bench/fidelity/run.sh; several are pooled)")
		fmt.Fprintln(out, "       report -value KIND [-bytes 8] FILE   (one run's value, as the tables read it)")
		fmt.Fprintln(out, "       report -rounds FILE   (the ratios of bench/fidelity/rounds.sh's runs.txt)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *roundsFile != "" {
		if flag.NArg() != 0 || *kind != "" {
			flag.Usage()
			os.Exit(2)
		}
		if err := printRounds(os.Stdout, *roundsFile); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if *kind != "" {
		if flag.NArg() != 1 {
			flag.Usage()
			os.Exit(2)
		}
		if err := printValue(os.Stdout, *kind, flag.Arg(0), *bytes); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	cells, err := load(flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(2)
	}
	if !write(os.Stdout, cells, *gap) {
		os.Exit(1)
	}
}

// printValue writes the value of one run's file, read as kind (parse.go's
// value), on a line of its own: report -value.
func printValue(w io.Writer, kind, file string, bytes int) error {
	v, err := value(kind, file, bytes)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, strconv.FormatFloat(v, 'g', -1, 64))
	return err
}

// cell is one row of the tables: a comparison in one library.
type cell struct {
	flavor, name, target string
	bytes                int
	pairs                []pair
	loads                []float64
}

type pair struct {
	id         int
	base, ours float64
	first      string // the side launched first
}

// pairStride separates the pair numbers of pooled runs (load): run.sh's
// pairs are numbered from 1, far below it.
const pairStride = 1000000

// load reads runs.csv of every OUT in dirs and every run's value, pooling
// the OUTs' pairs (pair k of dirs[i] becomes pair i·pairStride + k).
func load(dirs ...string) ([]*cell, error) {
	type key struct{ flavor, cell string }
	byKey := map[key]*cell{}
	var order []*cell
	type half struct {
		v     float64
		first bool
		set   bool
	}
	sides := map[key]map[int]map[string]*half{}
	var errs []string
	// readDir adds the runs of the d-th OUT; a run without a value goes to
	// errs, a malformed runs.csv is the error it returns.
	readDir := func(d int, dir string) error {
		f, err := os.Open(filepath.Join(dir, "runs.csv"))
		if err != nil {
			return err
		}
		defer f.Close()
		name := "runs.csv"
		if len(dirs) > 1 {
			name = filepath.Join(dir, name)
		}
		r := csv.NewReader(f)
		head, err := r.Read()
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		want := []string{"flavor", "cell", "target", "bytes", "pair", "side", "kind", "file", "load1"}
		if !slices.Equal(head, want) {
			return fmt.Errorf("%s: header %q, want %q", name, head, want)
		}
		line := 1
		for {
			rec, err := r.Read()
			if err == io.EOF {
				return nil
			}
			line++
			if err != nil {
				return fmt.Errorf("%s line %d: %v", name, line, err)
			}
			k := key{rec[0], rec[1]}
			c := byKey[k]
			bytes, err := strconv.Atoi(rec[3])
			if err != nil {
				return fmt.Errorf("%s line %d: bytes %q", name, line, rec[3])
			}
			if c == nil {
				c = &cell{flavor: rec[0], name: rec[1], target: rec[2], bytes: bytes}
				byKey[k] = c
				order = append(order, c)
				sides[k] = map[int]map[string]*half{}
			} else if c.target != rec[2] || c.bytes != bytes {
				return fmt.Errorf("%s line %d: %s %s has target %q and %d bytes here, %q and %d before",
					name, line, c.flavor, c.name, rec[2], bytes, c.target, c.bytes)
			}
			id, err := strconv.Atoi(rec[4])
			if err != nil || id < 0 || id >= pairStride {
				return fmt.Errorf("%s line %d: pair %q", name, line, rec[4])
			}
			id += d * pairStride
			side := rec[5]
			if side != "base" && side != "ours" {
				return fmt.Errorf("%s line %d: side %q (want base or ours)", name, line, side)
			}
			if sides[k][id] == nil {
				sides[k][id] = map[string]*half{}
			}
			file := rec[7]
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			v, err := value(rec[6], file, c.bytes)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s %s %s %s: %v", c.flavor, c.name, pairName(id, len(dirs)), side, err))
				continue
			}
			h := &half{v: v, set: true, first: len(sides[k][id]) == 0}
			sides[k][id][side] = h
			if l, err := strconv.ParseFloat(rec[8], 64); err == nil {
				c.loads = append(c.loads, l)
			}
		}
	}
	for d, dir := range dirs {
		if err := readDir(d, dir); err != nil {
			return nil, err
		}
	}
	for _, c := range order {
		k := key{c.flavor, c.name}
		ids := make([]int, 0, len(sides[k]))
		for id := range sides[k] {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids {
			b, o := sides[k][id]["base"], sides[k][id]["ours"]
			if b == nil || o == nil {
				errs = append(errs, fmt.Sprintf("%s %s %s: only one side ran", c.flavor, c.name, pairName(id, len(dirs))))
				continue
			}
			first := "base"
			if o.first {
				first = "ours"
			}
			c.pairs = append(c.pairs, pair{id: id, base: b.v, ours: o.v, first: first})
		}
	}
	if len(errs) > 0 {
		// Every pair counts: an incomplete pair is an error, not a pair
		// left out.
		return nil, fmt.Errorf("%d runs without a value:\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	return order, nil
}

// pairName names pair id of load's numbering for a message: "pair k", or
// with pooled runs "run i pair k" (i from 1, in the order of the OUTs).
func pairName(id, runs int) string {
	if runs > 1 {
		return fmt.Sprintf("run %d pair %d", id/pairStride+1, id%pairStride)
	}
	return fmt.Sprintf("pair %d", id)
}

// minModeRuns is the fewest runs of one side that make a mode of it.
const minModeRuns = 2

// modeStats compares one mode of the two sides.
type modeStats struct {
	mode             int
	base, ours       int // runs of each side in the mode
	baseMed, oursMed float64
	paired           ratioCI // pairs with both runs in the mode
	unpaired         ratioCI
}

// cellStats is everything the tables print about one cell.
type cellStats struct {
	all        ratioCI
	diff       ratioCI // target diff: ours − base
	modes      []modeStats
	nBaseModes int
	nOursModes int
	slowP      float64 // Fisher: the sides land outside their fastest mode equally often
	baseMedian float64
	oursMedian float64
	verdict    string
	ok         bool
	// byOrder is the cell's median per-pair ratio (difference with target
	// diff) over the pairs that launched base first [0] and ours first
	// [1]: run.sh alternates the order (A B B A), and a gap between the
	// two is a carry-over from one mpirun to the next that the
	// alternation cancels in the median over all pairs.
	byOrder [2]ratioCI
}

func analyse(c *cell, gap float64) cellStats {
	n := len(c.pairs)
	base, ours, ratios, diffs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	var st cellStats
	var ordered [2][]float64
	for i, p := range c.pairs {
		base[i], ours[i], ratios[i], diffs[i] = p.base, p.ours, p.ours/p.base, p.ours-p.base
		o, v := 0, ratios[i]
		if p.first == "ours" {
			o = 1
		}
		if c.target == "diff" {
			v = diffs[i]
		}
		ordered[o] = append(ordered[o], v)
	}
	st.byOrder = [2]ratioCI{pairedMedian(ordered[0]), pairedMedian(ordered[1])}
	st.all, st.diff = pairedMedian(ratios), pairedMedian(diffs)
	st.baseMedian, st.oursMedian = analysis.Median(base), analysis.Median(ours)
	// A lone run is not a mode (minModeRuns): one C run in the machine's
	// fast state (0.41 µs among 28 at 0.64 µs) otherwise became the C
	// side's mode 1 and was matched with ours' main mode, and every later
	// mode shifted by one.
	mb, mo := modes(base, gap, minModeRuns), modes(ours, gap, minModeRuns)
	st.nBaseModes, st.nOursModes = slices.Max(append(mb, 0))+1, slices.Max(append(mo, 0))+1
	if n == 0 {
		st.nBaseModes, st.nOursModes = 0, 0
	}
	for m := range max(st.nBaseModes, st.nOursModes) {
		ms := modeStats{mode: m}
		var bv, ov, pr []float64
		for i := range n {
			if mb[i] == m {
				bv = append(bv, base[i])
			}
			if mo[i] == m {
				ov = append(ov, ours[i])
			}
			if mb[i] == m && mo[i] == m {
				pr = append(pr, ratios[i])
			}
		}
		ms.base, ms.ours, ms.baseMed, ms.oursMed = len(bv), len(ov), analysis.Median(bv), analysis.Median(ov)
		ms.paired, ms.unpaired = pairedMedian(pr), unpairedRatio(ov, bv)
		st.modes = append(st.modes, ms)
	}
	if st.nBaseModes > 1 || st.nOursModes > 1 {
		slowB, slowO := 0, 0
		for i := range n {
			if mb[i] > 0 {
				slowB++
			}
			if mo[i] > 0 {
				slowO++
			}
		}
		st.slowP = fisherTwoSided(slowB, n-slowB, slowO, n-slowO)
	} else {
		st.slowP = math.NaN()
	}
	st.verdict, st.ok = verdict(c, &st)
	return st
}

func verdict(c *cell, st *cellStats) (string, bool) {
	n := len(c.pairs)
	switch c.target {
	case "cloop":
		var miss []string
		if n < 30 {
			miss = append(miss, fmt.Sprintf("%d pairs < 30", n))
		}
		if !(st.all.Est <= 1.05 && st.all.Hi <= 1.10) {
			miss = append(miss, "all pairs")
		}
		for _, m := range st.modes {
			if m.base == 0 || m.ours == 0 || (st.nBaseModes < 2 && st.nOursModes < 2) {
				continue // a mode one side never showed has no ratio
			}
			r := m.paired
			if math.IsNaN(r.Hi) {
				// Too few pairs with both runs in the mode for an interval
				// (6 for 95 %): all runs of the mode, unpaired.
				r = m.unpaired
			}
			if !(r.Est <= 1.05 && r.Hi <= 1.10) {
				miss = append(miss, fmt.Sprintf("mode %d", m.mode+1))
			}
		}
		if len(miss) == 0 {
			return "PASS", true
		}
		return "FAIL (" + strings.Join(miss, ", ") + ")", false
	case "tool":
		switch {
		case n < 15:
			return fmt.Sprintf("FAIL (%d pairs < 15)", n), false
		case st.all.Est >= 0.95 && st.all.Est <= 1.05:
			return "PASS", true
		}
		return "FAIL", false
	case "diff":
		switch {
		case n < 15:
			return fmt.Sprintf("FAIL (%d pairs < 15)", n), false
		case math.Abs(st.diff.Est) <= 5:
			return "PASS", true
		}
		return "FAIL", false
	}
	return "(informative)", true
}

// write prints the tables and reports whether every target was met.
func write(w io.Writer, cells []*cell, gap float64) bool {
	ok := true
	fmt.Fprintf(w, "Every pair counted; modes split where sorted run values step by more than %.2f×; ratio = ours / base.\n\n", gap)
	fmt.Fprintln(w, "| library | cell | pairs | base median | ours median | median ratio [95 % CI] | range | modes base/ours | runs per mode base : ours | slow more often? | load | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	var detail, order []string
	for _, c := range cells {
		st := analyse(c, gap)
		if st.byOrder[0].N > 0 && st.byOrder[1].N > 0 {
			f := "%d pairs: %.3f [%.3f, %.3f]"
			if c.target == "diff" {
				f = "%d pairs: %+.1f pt [%+.1f, %+.1f]"
			}
			b, o := st.byOrder[0], st.byOrder[1]
			order = append(order, fmt.Sprintf("| %s | %s | "+f+" | "+f+" |", c.flavor, c.name, b.N, b.Est, b.Lo, b.Hi, o.N, o.Est, o.Lo, o.Hi))
		}
		ok = ok && st.ok
		est := st.all
		unit := unitOf(c)
		mid := fmt.Sprintf("%.3f [%.3f, %.3f]", est.Est, est.Lo, est.Hi)
		rng := fmt.Sprintf("%.2f–%.2f", est.Min, est.Max)
		if c.target == "diff" {
			mid = fmt.Sprintf("%+.1f pt [%+.1f, %+.1f]", st.diff.Est, st.diff.Lo, st.diff.Hi)
			rng = fmt.Sprintf("%+.1f–%+.1f", st.diff.Min, st.diff.Max)
		}
		var counts []string
		for _, m := range st.modes {
			counts = append(counts, fmt.Sprintf("%d:%d", m.base, m.ours))
		}
		slow := "—"
		if !math.IsNaN(st.slowP) {
			slow = fmt.Sprintf("p = %.2f", st.slowP)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %d/%d | %s | %s | %s | %s |\n",
			c.flavor, c.name, len(c.pairs), unit(st.baseMedian), unit(st.oursMedian), mid, rng,
			st.nBaseModes, st.nOursModes, strings.Join(counts, ", "), slow, loadRange(c.loads), st.verdict)
		if len(st.modes) > 1 {
			for _, m := range st.modes {
				line := fmt.Sprintf("| %s | %s | mode %d | %d : %d runs | base %s, ours %s |", c.flavor, c.name, m.mode+1,
					m.base, m.ours, unit(m.baseMed), unit(m.oursMed))
				if m.paired.N > 0 {
					line += fmt.Sprintf(" %d pairs: %.3f [%.3f, %.3f] |", m.paired.N, m.paired.Est, m.paired.Lo, m.paired.Hi)
				} else {
					line += " no pair in this mode on both sides |"
				}
				if m.base > 0 && m.ours > 0 {
					line += fmt.Sprintf(" %.3f [%.3f, %.3f] |", m.unpaired.Est, m.unpaired.Lo, m.unpaired.Hi)
				} else {
					line += " — |"
				}
				detail = append(detail, line)
			}
		}
	}
	subTable(w, "Per mode (mode 1 = each side's fastest runs): the median per-pair ratio of the pairs whose two runs are both in the mode, and the Hodges–Lehmann ratio of all runs of the mode (rank-sum 95 % CI).",
		[]string{"library", "cell", "mode", "runs base : ours", "medians", "paired ratio [95 % CI]", "unpaired ratio [95 % CI]"}, detail)
	subTable(w, "By launch order (informative): the median per-pair ratio of the pairs that launched the baseline first and of those that launched ours first; the verdict is over all pairs, whose alternation cancels a carry-over from one mpirun to the next.",
		[]string{"library", "cell", "base first", "ours first"}, order)
	if ok {
		fmt.Fprintln(w, "\nall targets met")
	} else {
		fmt.Fprintln(w, "\nsome targets NOT met")
	}
	return ok
}

// subTable writes, when there are rows, a paragraph and a Markdown table of
// the rows under the header cols.
func subTable(w io.Writer, intro string, cols []string, rows []string) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n\n| %s |\n|%s\n", intro, strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
	for _, l := range rows {
		fmt.Fprintln(w, l)
	}
}

// unitOf formats a run value of the cell: seconds as µs, MB/s and percent as printed.
func unitOf(c *cell) func(float64) string {
	switch {
	case strings.Contains(c.name, "bw"):
		return func(v float64) string { return fmt.Sprintf("%.0f MB/s", v) }
	case c.target == "diff":
		return func(v float64) string { return fmt.Sprintf("%.1f %%", v) }
	}
	return func(v float64) string { return fmt.Sprintf("%.3f µs", v*1e6) }
}

func loadRange(l []float64) string {
	if len(l) == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(l), slices.Max(l))
}
