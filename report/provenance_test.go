package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// The machine section and the differences read the sidecars' provenance:
// a side whose ranks shared a CPU shows the note; a control variable set
// on B only is listed against A's default; a sidecar without provenance
// (format < 1.5) adds nothing.
func TestProvenanceInReport(t *testing.T) {
	meta := func(shared bool, cvar string) *rawdata.Metadata {
		r := provenance.Record{Version: 1, Library: "Open MPI v4.1.4", Launcher: provenance.Launcher{Name: "mpiexec.mpich", Argv: []string{"mpiexec.mpich", "-np", "2", "x"}},
			Nodes: []provenance.Node{{Name: "n", Ranks: []int{0, 1}, ClockSource: "tsc", Adjtimex: provenance.Adjtimex{State: "TIME_OK", Synchronized: true}}},
			Ranks: []provenance.Rank{{Rank: 0, Node: "n", MaskStart: "0"}, {Rank: 1, Node: "n", MaskStart: "1"}}, MPIT: &provenance.MPIT{}}
		if shared {
			r.Nodes[0].Overlaps = []provenance.Overlap{{Ranks: []int{0, 1}, CPUs: "0", Shared: true}}
		}
		if cvar != "" {
			r.MPIT.Differ = []provenance.Cvar{{Name: cvar, Value: "6", Default: "0"}}
		}
		b, _ := json.Marshal(&r)
		return &rawdata.Metadata{RunID: "r", Provenance: b}
	}
	a := &Side{Name: "A", Meta: []*rawdata.Metadata{meta(true, ""), {RunID: "old"}}}
	b := &Side{Name: "B", Meta: []*rawdata.Metadata{meta(false, "coll_tuned_allreduce_algorithm")}}
	got := differences([]*Side{a, b})
	want := []string{"B: coll_tuned_allreduce_algorithm=6 (A: default)", "B: shared CPUs=none (A: ranks 0 and 1 share CPU 0)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	facts := map[string]string{}
	addProvenance(func(n, v string) { facts[n] = v }, a.Meta[0])
	if !strings.Contains(facts["binding notes"], "ranks 0 and 1 on n share CPU 0") || facts["clock source"] != "tsc" ||
		!strings.HasPrefix(facts["clock discipline (adjtimex)"], "TIME_OK, synchronized") {
		t.Errorf("machine facts %q", facts)
	}
	// A rank that moved: the machine section counts its batches that moved.
	moved := provenance.Record{Version: 1, Ranks: []provenance.Rank{{Rank: 1, Node: "n", MaskStart: "0-1", CPUs: []int{0, 1},
		Migrations: 3, Samples: 10, Batches: 4, MovedBatches: 2}}}
	mb, _ := json.Marshal(&moved)
	facts = map[string]string{}
	addProvenance(func(n, v string) { facts[n] = v }, &rawdata.Metadata{RunID: "m", Provenance: mb})
	if want := "rank 1 on n: mask 0-1, ran on 0,1 (3 migrations in 10 samples; 2 of 4 batches moved)"; facts["binding"] != want {
		t.Errorf("binding %q, want %q", facts["binding"], want)
	}
	if got := launcherArgv(a.Meta[0]); strings.Join(got, " ") != "mpiexec.mpich -np 2 x" {
		t.Errorf("launcher %q", got)
	}
	if launcherArgv(a.Meta[1]) != nil {
		t.Error("launcher from a sidecar without provenance")
	}
}
