package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// rounds is what bench/fidelity/rounds.sh records: the value of every run
// (ns), by round and command.
type rounds struct {
	cmds   int
	values [][]float64 // values[p][i]: round p's run of command i
}

// readRounds reads rounds.sh's runs.txt: one line "ROUND COMMAND VALUE" per
// run, in launch order. Every round must hold one run of every command
// (rounds.sh stops at a failed run, and a round cut short is no round to
// pair): a missing or repeated run is an error that names the round, never
// a round left out.
func readRounds(r io.Reader) (*rounds, error) {
	type run struct {
		round, cmd int
		v          float64
	}
	var runs []run
	maxRound, maxCmd := 0, -1
	sc := bufio.NewScanner(r)
	for ln := 1; sc.Scan(); ln++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want \"ROUND COMMAND VALUE\", have %q", ln, sc.Text())
		}
		p, err1 := strconv.Atoi(f[0])
		i, err2 := strconv.Atoi(f[1])
		v, err3 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || err3 != nil || p < 1 || i < 0 || !(v > 0) {
			return nil, fmt.Errorf("line %d: want a round ≥ 1, a command ≥ 0 and a value > 0, have %q", ln, sc.Text())
		}
		runs = append(runs, run{p, i, v})
		maxRound, maxCmd = max(maxRound, p), max(maxCmd, i)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if maxCmd < 1 {
		return nil, fmt.Errorf("%d runs of %d command(s): a ratio needs two commands", len(runs), maxCmd+1)
	}
	out := &rounds{cmds: maxCmd + 1, values: make([][]float64, maxRound)}
	for p := range out.values {
		out.values[p] = make([]float64, out.cmds)
	}
	for _, x := range runs {
		if out.values[x.round-1][x.cmd] != 0 {
			return nil, fmt.Errorf("round %d: command %d ran twice", x.round, x.cmd)
		}
		out.values[x.round-1][x.cmd] = x.v
	}
	for p, row := range out.values {
		for i, v := range row {
			if v == 0 {
				return nil, fmt.Errorf("round %d: no run of command %d (of %d commands)", p+1, i, out.cmds)
			}
		}
	}
	return out, nil
}

// writeRounds writes the rounds' table: per command the median of its
// runs and its ratio to command 0, paired (the median over rounds of the
// per-round ratio, pairedMedian) and unpaired (the Hodges–Lehmann ratio of
// the two commands' runs, unpairedRatio), each with its 95 % interval: the
// same statistics as the fidelity tables.
func writeRounds(w io.Writer, rs *rounds) error {
	col := func(i int) []float64 {
		v := make([]float64, len(rs.values))
		for p, row := range rs.values {
			v[p] = row[i]
		}
		return v
	}
	base := col(0)
	fmt.Fprintf(w, "%d rounds; per command the median of its runs, and its ratio to command 0: paired (the median per-round ratio, exact order-statistic 95 %% CI) and unpaired (Hodges–Lehmann, rank-sum 95 %% CI)\n", len(rs.values))
	for i := range rs.cmds {
		v := col(i)
		line := fmt.Sprintf("cmd%d: median %.0f ns", i, analysis.Median(v))
		if i > 0 {
			r := make([]float64, len(v))
			for p := range v {
				r[p] = v[p] / base[p]
			}
			pr, ur := pairedMedian(r), unpairedRatio(v, base)
			line += fmt.Sprintf("; paired %.3f [%.3f, %.3f]; unpaired %.3f [%.3f, %.3f]", pr.Est, pr.Lo, pr.Hi, ur.Est, ur.Lo, ur.Hi)
			for _, warn := range []string{pr.CIWarning, ur.CIWarning} {
				if warn != "" {
					line += " (" + warn + ")" // e.g. too few rounds for an interval
				}
			}
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// printRounds is report -rounds FILE.
func printRounds(w io.Writer, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	rs, err := readRounds(f)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return writeRounds(w, rs)
}
