package tables

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// CPULoadNote states the busy-machine rule in one sentence.
var CPULoadNote = fmt.Sprintf("other CPU: the CPU time processes other than the ranks took on the CPUs the ranks could use during the measured observations, "+
	"from /proc (rawdata.CPULoad); an mpirun ran on a busy machine when that was at least %.0f%% of the CPU time available; "+
	"the load explains a group's numbers when some of its mpiruns were busy and its invalid share is in excess of the machine's own late share "+
	"or its slowest per-mpirun median is of a busy mpirun (docs/windows.md)", 100*analysis.BusyShare)

// MachineLoadLine says in one sentence whether the machine was busy
// during the mpirun loads (ReadCPULoads): "the machine was busy during k
// of n mpiruns: …" or "the machine was quiet: …"; "" when none recorded
// a load.
func MachineLoadLine(loads []*rawdata.CPULoad) string {
	n, busy, quiet, maxShare := 0, 0, 0, 0.0
	for _, l := range loads {
		if l == nil {
			continue
		}
		n++
		maxShare = max(maxShare, l.BusiestShare())
		if analysis.MpirunBusy(l) {
			busy++
		}
		if analysis.MpirunQuiet(l) {
			quiet++
		}
	}
	short := ""
	if k := n - busy - quiet; k > 0 {
		short = fmt.Sprintf("; %d too short for the clock ticks to tell", k)
	}
	switch {
	case n == 0:
		return ""
	case busy == 0 && quiet > 0:
		return fmt.Sprintf("the machine was quiet in %d of %d mpiruns: others took < %.0f%% of the ranks' CPU time%s",
			quiet, n, 100*analysis.BusyShare, short)
	case busy == 0:
		return fmt.Sprintf("the machine's load is unknown: %d mpiruns too short for the clock ticks to tell", n)
	}
	return fmt.Sprintf("the machine was busy during %d of %d mpiruns: others took up to %.0f%% of the ranks' CPU time (busy: ≥ %.0f%%)%s",
		busy, n, 100*maxShare, 100*analysis.BusyShare, short)
}

// WriteCPULoad prints, below the invalid shares, the CPU time other
// processes took during each mpirun (ids and loads: the Dataset's Mpiruns
// and ReadCPULoads), whether the machine was busy (MachineLoadLine), and
// the groups whose numbers the load explains (analysis.GroupLoad.Explains)
// with their per-mpirun medians beside each mpirun's share; nothing when no
// mpirun recorded a load.
func WriteCPULoad(w io.Writer, ids []analysis.MpirunID, loads []*rawdata.CPULoad, sums []analysis.GroupSummary) error {
	line := MachineLoadLine(loads)
	if line == "" {
		return nil
	}
	fmt.Fprintf(w, "\nCPU time taken by other processes during the measurements, per mpirun\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mpirun\tother CPU\tavailable\tshare\t\n")
	for i, l := range loads {
		if l == nil || i >= len(ids) {
			continue
		}
		mark := ""
		if analysis.MpirunBusy(l) {
			mark = "busy"
		}
		fmt.Fprintf(tw, "%s/%d\t%.3g s\t%.3g s\t%s\t%s\n", ids[i].RunID, ids[i].Mpirun, l.OtherCPUS, l.AvailableCPUS, SharePct(l.BusiestShare()), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, WrapLine(line, 2))
	var keys []analysis.GroupKey
	var explained []analysis.GroupSummary
	of := 0
	for _, s := range sums {
		if s.Load == nil {
			continue
		}
		of++
		if s.Load.Explains() {
			explained = append(explained, s)
			keys = append(keys, s.Key)
		}
	}
	if len(explained) > 0 {
		fmt.Fprintf(w, "the load explains %d of %d groups: the slowest per-mpirun median (that mpirun's other CPU share)\n", len(explained), of)
		common := commonLabels(keys)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range explained {
			unit, sc := analysis.TimeUnit(s.Median)
			var meds []string
			slow := 0
			for j, m := range s.MpirunMedians {
				if m > s.MpirunMedians[slow] {
					slow = j
				}
			}
			if len(s.MpirunMedians) > 0 {
				meds = append(meds, fmt.Sprintf("%s (%s)", analysis.FormatTimeScaled(s.MpirunMedians[slow], sc, unit), SharePct(s.Load.Shares[slow])))
			}
			why := "slowest mpirun busy"
			if s.Load.InExcess {
				why = "invalid in excess"
				if s.Load.SlowestBusy {
					why += ", slowest mpirun busy"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", anShortKey(s.Key, common), strings.Join(meds, ", "), why)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, WrapLine(CPULoadNote, 0))
	return nil
}
