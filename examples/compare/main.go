// Command compare compares two MPI libraries (or any two campaigns)
// statistically with the analysis package as a library, as make demo does
// with the reprobench CLI: per-mpirun medians, the Wilcoxon rank-sum test,
// stars, a table.
//
//	go run ./examples/compare A.csv… -- B.csv…       # raw files of reprobench run
//	go run ./examples/compare -synthetic -seed 1     # two seeded synthetic campaigns
//
// Raw files of several mpiruns are needed: with one mpirun per side there is
// one per-mpirun median per side and nothing to test.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/analysis/synth"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
}

func run(stdout io.Writer, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	synthetic := fs.Bool("synthetic", false, "compare two synthetic campaigns instead of files")
	seed := fs.Uint64("seed", 1, "seed of the synthetic campaigns")
	effect := fs.Float64("effect", 1.03, "synthetic: run time factor of B relative to A")
	ignore := fs.String("ignore", "mpi_lib", "label that names the campaign, ignored when matching groups")
	alpha := fs.Float64("alpha", 0.05, "significance level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	nameA, nameB := "A", "B"
	a, b := analysis.NewDataset(), analysis.NewDataset()
	if *synthetic {
		nameA, nameB = "libA", "libB"
		fmt.Fprintf(stdout, "synthetic campaigns, seed %d: libB runs %.3f× libA, 10 mpiruns × 200 observations each\n", *seed, *effect)
		if err := generate(a, nameA, 1, *seed); err != nil {
			return err
		}
		if err := generate(b, nameB, *effect, *seed+1); err != nil {
			return err
		}
	} else {
		rest := fs.Args()
		i := slices.Index(rest, "--")
		if i <= 0 || i == len(rest)-1 {
			return fmt.Errorf("usage: compare A-FILES... -- B-FILES...  or  compare -synthetic")
		}
		if err := a.ReadFiles(rest[:i]...); err != nil {
			return err
		}
		if err := b.ReadFiles(rest[i+1:]...); err != nil {
			return err
		}
	}
	opt := analysis.DefaultOptions // Tukey k = 1.5, 95% intervals, α = 0.05
	opt.Alpha = *alpha
	rows := CompareCampaigns(a, b, *ignore, opt)
	if len(rows) == 0 {
		return fmt.Errorf("no group in common")
	}
	if la, lb := rows[0].A.Key.LabelValue(*ignore), rows[0].B.Key.LabelValue(*ignore); la != "" && lb != "" {
		nameA, nameB = la, lb // name the columns after the campaigns' labels
	}
	return Print(stdout, nameA, nameB, rows, opt.Alpha)
}

// generate writes a seeded synthetic campaign (analysis/synth: log-normal
// noise per observation and per mpirun, a few outliers and invalid rows) in
// the raw CSV format and reads it back, as if from files.
func generate(d *analysis.Dataset, lib string, factor float64, seed uint64) error {
	var buf bytes.Buffer
	err := synth.Write(&buf, synth.Config{RunID: lib, Mpiruns: 10, Reps: 200,
		Calls: []string{"MPI_Allreduce", "MPI_Bcast"}, Msizes: []int{8, 1024, 32768}, Np: 2,
		Label: "mpi_lib", LabelValues: []string{lib}, Factors: []float64{factor},
		MpirunSD: 0.02, NoiseSD: 0.1, InvalidFrac: 0.01, OutlierFrac: 0.01, Seed: seed})
	if err != nil {
		return err
	}
	return d.Read(&buf, lib+".csv")
}
