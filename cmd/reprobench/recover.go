package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/region"
)

func init() {
	register(command{
		name:    "recover",
		summary: "write the spill files a region run left when it died (DIR/RUN-mpirunNNN.spill) as that mpirun's raw data, marked incomplete",
		run:     runRecover,
	})
}

func runRecover(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("recover", "[--run-id ID] [--mpirun N] DIR", stderr)
	runID := fs.String("run-id", "", "run id of the dead run (default: the only run id with a spill directory in DIR)")
	mpirun := fs.Int("mpirun", -1, "mpirun index of the dead run (default: the only mpirun of the run id with a spill directory)")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: recover takes one directory", errUsage)
	}
	dir := fs.Arg(0)
	id, n, err := findSpill(dir, *runID, *mpirun)
	if err != nil {
		return err
	}
	res, err := region.Recover(region.Output{Dir: dir, RunID: id, Mpirun: n, PerRank: true})
	if err != nil {
		return err
	}
	rec := res.Record
	state := "incomplete (some rank did not reach Close)"
	if !rec.Incomplete {
		state = "complete (every rank reached Close; rank 0 did not write)"
	}
	fmt.Fprintf(stdout, "recover: %d occurrences of %d regions on %d ranks, %s; %s\n", len(res.Rows), len(rec.Totals), rec.Ranks, state, rec.Misuse)
	fmt.Fprintf(stdout, "raw data: %s (per rank: %s, sidecar: %s)\n", res.Files.CSV, res.Files.Ranks, res.Files.JSON)
	return nil
}

// findSpill picks the spill directory in dir for runID and mpirun (empty
// and −1: the only one there is).
func findSpill(dir, runID string, mpirun int) (string, int, error) {
	if runID != "" && mpirun >= 0 {
		return runID, mpirun, nil
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*-mpirun*.spill"))
	type pick struct {
		id string
		n  int
	}
	var picks []pick
	for _, f := range found {
		base := strings.TrimSuffix(filepath.Base(f), ".spill")
		i := strings.LastIndex(base, "-mpirun")
		var n int
		if _, err := fmt.Sscanf(base[i+len("-mpirun"):], "%d", &n); err != nil {
			continue
		}
		if id := base[:i]; (runID == "" || id == runID) && (mpirun < 0 || n == mpirun) && rawdata.CheckRunID(id) == nil {
			picks = append(picks, pick{id, n})
		}
	}
	switch len(picks) {
	case 0:
		return "", 0, fmt.Errorf("recover: no spill directory (RUN-mpirunNNN.spill) in %s matches", dir)
	case 1:
		return picks[0].id, picks[0].n, nil
	}
	return "", 0, fmt.Errorf("%w: %d spill directories in %s match: name one with --run-id and --mpirun", errUsage, len(picks), dir)
}
