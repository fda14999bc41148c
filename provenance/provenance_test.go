package provenance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// Ground truth: masks chosen by hand and the groups they must give.
func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		masks []string
		want  []Overlap
	}{
		{"bound apart", []string{"0", "1"}, nil},
		{"two on one CPU", []string{"0", "0"}, []Overlap{{Ranks: []int{0, 1}, CPUs: "0", Shared: true}}},
		{"unbound, as many CPUs as ranks", []string{"0-1", "0-1"}, []Overlap{{Ranks: []int{0, 1}, CPUs: "0-1", Shared: false}}},
		{"three unbound on two CPUs", []string{"0-1", "0-1", "0-1"}, []Overlap{{Ranks: []int{0, 1, 2}, CPUs: "0-1", Shared: true}}},
		{"chain", []string{"0-1", "1-2", "3", "3"}, []Overlap{{Ranks: []int{0, 1}, CPUs: "0-2"}, {Ranks: []int{2, 3}, CPUs: "3", Shared: true}}},
	} {
		var probes []rankProbe
		for _, m := range tc.masks {
			probes = append(probes, rankProbe{Node: "n", OnlineCPUs: "0-3", Mask: m})
		}
		rec := combine(probes)
		if got := rec.Nodes[0].Overlaps; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: overlaps %+v, want %+v", tc.name, got, tc.want)
		}
		shared := false
		for _, o := range tc.want {
			shared = shared || o.Shared
		}
		if got := len(rec.Notes()) > 0; got != shared {
			t.Errorf("%s: notes %q, want a note: %v", tc.name, rec.Notes(), shared)
		}
	}
}

func TestListRoundTrip(t *testing.T) {
	for _, s := range []string{"0", "0-3", "0-3,8,10-11"} {
		v, err := parseList(s)
		if err != nil || formatList(v) != s {
			t.Errorf("%q: parsed %v (%v), formatted %q", s, v, err, formatList(v))
		}
	}
	if _, err := parseList("3-1"); err == nil {
		t.Error("3-1 parsed")
	}
}

// A simulated world's record is the same on every rank, fake and
// deterministic, and notes nothing (every rank on its own CPU).
func TestCollectSimulated(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[int][]byte{}
	err = w.Run(func(r *mpitest.Rank) error {
		b, err := Collect(r.Comm(), Options{Simulated: true})
		if err != nil {
			return err
		}
		b.Sample()
		rec, err := b.Finish(r.Comm(), "test")
		if err != nil {
			return err
		}
		rec.StartUTC = rec.StartUTC.Truncate(0)
		if (rec.MPIT != nil) != (r.ID() == 0) {
			t.Errorf("rank %d: MPI_T record %+v, want one on rank 0 only", r.ID(), rec.MPIT)
		}
		cp := *rec
		cp.MPIT = nil
		j, _ := json.Marshal(&cp)
		mu.Lock()
		got[r.ID()] = j
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(got[0]) != string(got[1]) || string(got[0]) != string(got[2]) {
		t.Fatalf("records differ across ranks:\n%s\n%s", got[0], got[2])
	}
	var rec Record
	if err := json.Unmarshal(got[0], &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Simulated || rec.Library != "simulated" || len(rec.Nodes) != 1 || len(rec.Ranks) != 3 || rec.Launcher.Name != "mpitest" {
		t.Errorf("record %s", got[0])
	}
	for i, k := range rec.Ranks {
		if k.MaskStart != k.MaskEnd || len(k.CPUs) != 1 || k.CPUs[0] != i || k.Samples != 3 || k.Migrations != 0 || !k.Bound {
			t.Errorf("rank %d: %+v", i, k)
		}
	}
	if n := rec.Notes(); len(n) != 0 {
		t.Errorf("notes %q", n)
	}
}

func TestMigrationNote(t *testing.T) {
	b := &Binding{rec: combine([]rankProbe{{Node: "n", OnlineCPUs: "0-1", Mask: "0-1"}}), simulated: true}
	for _, cpu := range []int{0, 1, 1, 0} {
		b.rank = cpu
		b.Sample()
	}
	b.rec.Ranks[0].CPUs, b.rec.Ranks[0].Samples, b.rec.Ranks[0].Migrations = b.cpus, b.samples, b.moves
	n := b.rec.Notes()
	if len(n) != 1 || !strings.Contains(n[0], "2 migrations in 4 samples") {
		t.Errorf("notes %q", n)
	}
}

// A sysfs tree with and without cpufreq: values where the files are, and
// "unavailable" with the reason where they are not.
func TestCPUFacts(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("devices/system/cpu/cpu0/topology/core_id", "0")
	write("devices/system/cpu/smt/control", "notsupported")
	write("kernel/mm/transparent_hugepage/enabled", "always [madvise] never")
	f := readCPUFacts(root)
	if !IsUnavailable(f.Governor) || !strings.Contains(f.Governor, "no cpufreq driver") || f.SMT != "notsupported" || f.THP != "madvise" ||
		!IsUnavailable(f.Turbo) || !IsUnavailable(f.THPDefrag) {
		t.Errorf("without cpufreq: %+v", f)
	}
	for cpu, gov := range []string{"performance", "powersave"} {
		d := "devices/system/cpu/cpu" + string(rune('0'+cpu)) + "/cpufreq/"
		write(d+"scaling_governor", gov)
		write(d+"cpuinfo_min_freq", "800000")
		write(d+"cpuinfo_max_freq", "3600000")
		write(d+"scaling_cur_freq", "2400000")
	}
	write("devices/system/cpu/intel_pstate/no_turbo", "1")
	f = readCPUFacts(root)
	if f.Governor != "performance,powersave" || f.MinKHz != "800000" || f.MaxKHz != "3600000" || f.CurKHz != "2400000" || f.Turbo != "off" {
		t.Errorf("with cpufreq: %+v", f)
	}
}

// This machine's own probe: every fact is a value or says why not.
func TestLocal(t *testing.T) {
	p := local("here")
	for name, v := range map[string]string{"clock source": p.Clock, "mask": p.Mask, "online": p.OnlineCPUs, "smt": p.CPUFacts.SMT, "thp": p.CPUFacts.THP, "adjtimex": p.Adjtimex.State} {
		if v == "" || v == Unavailable {
			t.Errorf("%s: %q", name, v)
		}
	}
	t.Logf("%+v", p)
}

// Ground truth by construction: values against defaults, with where each
// was set.
func TestCompareCvars(t *testing.T) {
	vs := []mpi.ControlVariable{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: "x"}, {Name: "new", Value: "5"},
		{Name: "orte_hnp_uri", Value: "u2"}, {Name: "obj", Bound: true}}
	defs := []mpi.ControlVariable{{Name: "a", Value: "1"}, {Name: "b", Value: "0"}, {Name: "c", Value: "x"}, {Name: "orte_hnp_uri", Value: ""}}
	env := map[string]string{"OMPI_MCA_new": "5"}
	files := []paramFile{{path: "/h/.openmpi/mca-params.conf", set: map[string]string{"b": "2"}}}
	m := compareCvars(&MPIT{}, vs, defs, true, false, func(k string) string { return env[k] }, files)
	want := []Cvar{{Name: "b", Value: "2", Default: "0", Source: "file /h/.openmpi/mca-params.conf"},
		{Name: "new", Value: "5", Source: "environment OMPI_MCA_new"}, {Name: "orte_hnp_uri", Value: "u2", PerJob: true}}
	if m.Count != 6 || !reflect.DeepEqual(m.Differ, want) || m.All != nil {
		t.Errorf("got %d, %+v, want 6, %+v", m.Count, m.Differ, want)
	}
	if m := compareCvars(&MPIT{}, vs, nil, false, true, func(string) string { return "" }, nil); len(m.Differ) != 0 || len(m.All) != 6 {
		t.Errorf("without defaults: differ %+v, all %d", m.Differ, len(m.All))
	}
}

// The text env prints: the clock, the CPU facts and this process's
// binding, each a line.
func TestLocalRecordLines(t *testing.T) {
	l := strings.Join(LocalRecord().Lines(), "\n")
	for _, want := range []string{"clock source\t", "clock discipline\t", "cpufreq governor\t", "SMT\t", "transparent huge pages\t", "rank 0\ton "} {
		if !strings.Contains(l, want) {
			t.Errorf("no %q in\n%s", want, l)
		}
	}
}

// Two sides that differ in one control variable, set on B only, and in
// the binding of one of A's mpiruns: exactly those lines; identical sides
// give none.
func TestDifferences(t *testing.T) {
	base := func() *Record {
		r := combine([]rankProbe{{Node: "n", OnlineCPUs: "0-1", Mask: "0", Clock: "tsc"}, {Node: "n", OnlineCPUs: "0-1", Mask: "1", Clock: "tsc"}})
		r.Library, r.MPIT = "Open MPI v4.1.4", &MPIT{Differ: []Cvar{{Name: "orte_hnp_uri", Value: "x", PerJob: true}}}
		return r
	}
	shared := base()
	shared.Ranks[1].MaskStart = "0"
	shared.Nodes[0].Overlaps = overlaps([]int{0, 1}, shared.Ranks)
	b := base()
	b.MPIT.Differ = append(b.MPIT.Differ, Cvar{Name: "coll_tuned_allreduce_algorithm", Value: "6", Default: "0"})
	got := Differences([]string{"A", "B"}, [][]*Record{{base(), shared, nil}, {b, b}})
	want := []string{
		"B: coll_tuned_allreduce_algorithm=6 (A: default)",
		"A: shared CPUs differs across its mpiruns: none (1), ranks 0 and 1 share CPU 0 (1)",
		"B: shared CPUs=none (A: none | ranks 0 and 1 share CPU 0)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := Differences([]string{"A", "B"}, [][]*Record{{base(), base()}, {base(), base()}}); len(got) != 0 {
		t.Errorf("identical sides: %q", got)
	}
}

// Explain, with ground truth by construction: 5+5 mpiruns that differ
// only in one control variable name it (exact p = 2/C(10,5) = 0.0079; the
// estimate from 9999 permutations has a standard error of 0.0009, so
// p ≤ 0.05 fails with probability far below 1e-9); a fact that alternates
// within both sides is not named (exact p of separation ≥ 0.6 is ≥ 0.5);
// identical campaigns name nothing.
func TestExplain(t *testing.T) {
	mk := func(cvar string, moved int) *Record {
		r := combine([]rankProbe{{Node: "n", OnlineCPUs: "0-1", Mask: "0"}, {Node: "n", OnlineCPUs: "0-1", Mask: "1"}})
		r.MPIT = &MPIT{}
		if cvar != "" {
			r.MPIT.Differ = []Cvar{{Name: cvar, Value: "4", Default: "0"}}
		}
		r.Ranks[0].Migrations = moved
		return r
	}
	var a, b, same []*Record
	for i := range 5 {
		a = append(a, mk("", i%2))
		b = append(b, mk("coll_tuned_allreduce_algorithm", (i+1)%2))
		same = append(same, mk("", 0))
	}
	res := Explain(a, b, 0.05, 7, 9999)
	if len(res.Facts) != 2 || res.Facts[0].Fact != "coll_tuned_allreduce_algorithm" || !res.Facts[0].Named || res.Facts[0].Separation != 1 ||
		res.Facts[0].B != "4" || res.Facts[0].A != defaultText {
		t.Fatalf("%+v", res)
	}
	if f := res.Facts[1]; f.Fact != "ranks that migrated" || f.Named || f.P < 0.3 {
		t.Errorf("alternating fact %+v", f)
	}
	if p := res.Facts[0].P; p > 0.02 {
		t.Errorf("p %g, exact 0.0079", p)
	}
	if got := Explain(same, same, 0.05, 7, 9999); len(got.Facts) != 0 {
		t.Errorf("identical: %+v", got.Facts)
	}
	if l := Explain(same, same, 0.05, 7, 99).Lines(); !strings.Contains(l[len(l)-1], "no recorded difference") {
		t.Errorf("lines %q", l)
	}
}
