// Command papertool post-processes the raw output of reprobench for the
// scripts in bench/papers, which reproduce key findings of Hunold & Carpen-Amarie 2016
// (Hunold and Carpen-Amarie, "MPI Benchmarking Revisited"). It has five
// subcommands:
//
//	papertool label  -o OUT.csv RAW.csv...         add the columns sync and rt (process sync method and runtime type) from each file's JSON sidecar
//	papertool factor -unit mpirun|exp -out DIR -name N RAW.csv...   per-unit medians, Kruskal-Wallis and ANOVA across units (§5.2)
//	papertool drift  -out DIR -name N CLOCKCHECK.json...             |offset| over time per clock-sync algorithm, table and PNG (§4.2)
//	papertool repro  -out DIR -ours DIR -loop DIR                    normalized runtimes over trials of two methods (§6.3)
//	papertool skew   -out DIR -name N RAW.ranks.csv...               how far apart the ranks start the timed call, per sync method (Fig. 10)
//
// Statistics come from package analysis; papertool only groups the data,
// writes CSV/JSON tables and draws the plots.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: papertool label|factor|drift|repro|skew [flags] [args]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "label":
		err = cmdLabel(os.Args[2:])
	case "factor":
		err = cmdFactor(os.Args[2:])
	case "drift":
		err = cmdDrift(os.Args[2:])
	case "repro":
		err = cmdRepro(os.Args[2:])
	case "skew":
		err = cmdSkew(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "papertool:", err)
		os.Exit(1)
	}
}
