package provenance

import (
	"fmt"
	"os"
	"strings"
)

// LocalRecord is the record of this process alone, without MPI: one node
// (the host name) and one rank (this thread's binding), from local.
func LocalRecord() *Record {
	host, _ := os.Hostname()
	p := local(host)
	rec := combine([]rankProbe{p})
	rec.Library, rec.Launcher = unavailable("not launched under MPI"), p.Launcher
	if p.CPU >= 0 {
		rec.Ranks[0].CPUs, rec.Ranks[0].Samples = []int{p.CPU}, 1
	}
	return rec
}

// Lines returns the record for people, one "what\tvalue" line each: per
// node the clock source, the clock's discipline and the CPU facts, then
// every rank's binding and the notes; none for a nil record.
func (r *Record) Lines() []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, n := range r.Nodes {
		at := ""
		if len(r.Nodes) > 1 {
			at = " " + n.Name
		}
		out = append(out, "clock source"+at+"\t"+n.ClockSource, "clock discipline"+at+"\t"+n.Adjtimex.String())
		c := n.CPU
		freq := c.MinKHz + " / " + c.MaxKHz + " / " + c.CurKHz
		if c.MinKHz == c.MaxKHz && c.MaxKHz == c.CurKHz {
			freq = c.MinKHz
		}
		out = append(out, "cpufreq governor"+at+"\t"+c.Governor, "frequency min/max/cur kHz"+at+"\t"+freq, "turbo/boost"+at+"\t"+c.Turbo,
			"SMT"+at+"\t"+c.SMT, "transparent huge pages"+at+"\t"+c.THP+" (defrag "+c.THPDefrag+")")
	}
	for _, k := range r.Ranks {
		s := fmt.Sprintf("rank %d\ton %s, mask %s", k.Rank, k.Node, k.MaskStart)
		if k.Bound {
			s += " (bound)"
		} else {
			s += " (all online CPUs: unbound)"
		}
		if k.MaskEnd != "" && k.MaskEnd != k.MaskStart {
			s += ", at the end " + k.MaskEnd
		}
		if len(k.CPUs) > 0 {
			s += fmt.Sprintf(", on CPU %s (%d migrations in %d samples", strings.Trim(strings.Join(strings.Fields(fmt.Sprint(k.CPUs)), ","), "[]"), k.Migrations, k.Samples)
			if k.Batches > 0 {
				s += fmt.Sprintf("; %d of %d batches moved", k.MovedBatches, k.Batches)
			}
			s += ")"
		}
		out = append(out, s)
	}
	for _, n := range r.Notes() {
		out = append(out, "note\t"+n)
	}
	return out
}

// String describes the discipline in one line: state, synchronized or
// not, frequency offset and status flags.
func (a Adjtimex) String() string {
	if IsUnavailable(a.State) {
		return a.State
	}
	sync := "not synchronized"
	if a.Synchronized {
		sync = "synchronized"
	}
	s := fmt.Sprintf("%s, %s, frequency offset %.3f ppm, status %#x", a.State, sync, a.FreqPPM, a.Status)
	if len(a.StatusFlags) > 0 {
		s += " " + strings.Join(a.StatusFlags, "|")
	}
	return s
}
