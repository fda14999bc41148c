package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// provenanceOf returns the sidecar's provenance record, nil when it has
// none (format < 1.5) or it does not parse.
func provenanceOf(md *rawdata.Metadata) *provenance.Record {
	if len(md.Provenance) == 0 {
		return nil
	}
	var r provenance.Record
	if json.Unmarshal(md.Provenance, &r) != nil {
		return nil
	}
	return &r
}

// launcherArgv is the command line of the launcher that started the
// mpirun, when its provenance recorded one.
func launcherArgv(md *rawdata.Metadata) []string {
	if r := provenanceOf(md); r != nil {
		return r.Launcher.Argv
	}
	return nil
}

// addProvenance adds the machine facts of md's provenance record: each
// node's clock source and discipline and CPU facts, every rank's binding,
// and the binding's notes (ranks sharing a CPU, migrations).
func addProvenance(add func(name, v string), md *rawdata.Metadata) {
	r := provenanceOf(md)
	if r == nil {
		return
	}
	for _, n := range r.Nodes {
		at := ""
		if len(r.Nodes) > 1 {
			at = " (" + n.Name + ")"
		}
		add("clock source"+at, n.ClockSource)
		add("clock discipline (adjtimex)"+at, n.Adjtimex.String())
		c := n.CPU
		add("CPU governor"+at, c.Governor)
		freq := strings.Join([]string{c.MinKHz, c.MaxKHz, c.CurKHz}, " / ")
		if c.MinKHz == c.MaxKHz && c.MaxKHz == c.CurKHz {
			freq = c.MinKHz
		}
		add("CPU frequency min/max/current kHz"+at, freq)
		add("turbo/boost"+at, c.Turbo)
		add("SMT"+at, c.SMT)
		add("transparent huge pages (enabled, defrag)"+at, c.THP+", "+c.THPDefrag)
	}
	var b []string
	for _, k := range r.Ranks {
		s := fmt.Sprintf("rank %d on %s: mask %s", k.Rank, k.Node, k.MaskStart)
		if k.MaskEnd != "" && k.MaskEnd != k.MaskStart {
			s += " → " + k.MaskEnd
		}
		if len(k.CPUs) > 0 {
			s += fmt.Sprintf(", ran on %s (%d migrations in %d samples", joinCPUs(k.CPUs), k.Migrations, k.Samples)
			if k.Batches > 0 {
				s += fmt.Sprintf("; %d of %d batches moved", k.MovedBatches, k.Batches)
			}
			s += ")"
		}
		b = append(b, s)
	}
	add("binding", strings.Join(b, "; "))
	if notes := r.Notes(); len(notes) > 0 {
		add("binding notes", strings.Join(notes, "; "))
	}
}

func joinCPUs(v []int) string {
	s := make([]string, len(v))
	for i, c := range v {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// differences lists what the sides' provenance records say differed
// (provenance.Differences), over each side's sidecars.
func differences(sides []*Side) []string {
	names := make([]string, len(sides))
	recs := make([][]*provenance.Record, len(sides))
	for i, s := range sides {
		names[i] = s.Name
		for _, md := range s.metas() {
			if r := provenanceOf(md); r != nil {
				recs[i] = append(recs[i], r)
			}
		}
	}
	return provenance.Differences(names, recs)
}
