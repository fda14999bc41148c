package provenance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// Binding follows one rank's CPU between Collect and Finish. Its methods
// are for the rank's measuring goroutine (the thread the rank measures on);
// it is not safe for concurrent use.
type Binding struct {
	rec       *Record
	simulated bool
	rank      int
	cpus      []int
	last      int
	samples   int
	moves     int
	source    string
	probe     rankProbe
	lib       string
	start     time.Time
	mpit      *MPIT // rank 0's
	// readMPIT: Finish reads the library's configuration on rank 0
	// (readMPIT, all its control variables when allCvars).
	readMPIT, allCvars bool

	// the batches of observations ended, and those ended on another CPU
	// than their beginning's (batch.go); inBatch: a batch is begun, on
	// batchCPU (negative when unread)
	batches, moved int
	batchCPU       int
	inBatch        bool
	readCPU        func() (int, string)  // Options.CPU
	expect         []Expectation         // Options.Expect
	cvals          []mpi.ControlVariable // rank 0's, as read
}

// Options say what Start and Collect read.
type Options struct {
	// Simulated marks a run of package mpitest: ranks are goroutines of
	// one process and their facts are deterministic fakes.
	Simulated bool
	// AllCvars keeps every MPI_T control variable in the record
	// (MPIT.All), not only those that differ from their default.
	AllCvars bool
	// NoMPIT skips MPI_T (and the defaults helper's process).
	NoMPIT bool
	// CPU, when set, reads the CPU the calling thread is on and how it
	// was read, as currentCPU does (a negative CPU: unreadable, and why);
	// nil: currentCPU, or the rank's own fake CPU when Simulated. Tests
	// set it to feed known readings.
	CPU func() (int, string)
	// Expect are control variables that must read the given values
	// after the measurements (ParseExpect of ExpectEnv): rank 0's Finish
	// reads them back into MPIT.Checked, and MPIT.CheckError says which
	// did not take effect. With NoMPIT they read as unreadable.
	Expect []Expectation
}

// Start probes this rank (local, or fake values when simulated) and takes
// the first sample of its CPU, without communicating; Finish later
// combines every rank's probe and samples into the record. Rank 0's
// Finish also reads the library's configuration through MPI_T (readMPIT)
// when MPI is initialized, kept in rank 0's record only: after the
// measurements, because initializing MPI_T in the measuring process
// changes what it measures (Open MPI 4.1.4's nonblocking collectives;
// docs/data-format.md, provenance).
func Start(c mpi.Comm, opt Options) (*Binding, error) {
	if c == nil {
		return nil, errors.New("provenance: Start needs a communicator")
	}
	simulated := opt.Simulated
	b := &Binding{simulated: simulated, rank: c.Rank(), last: -1, start: time.Now().UTC(), readCPU: opt.CPU, expect: opt.Expect}
	switch {
	case simulated && c.Rank() == 0:
		b.mpit, b.cvals = simulatedMPIT(c, opt.AllCvars)
	case !simulated && c.Rank() == 0 && !opt.NoMPIT && mpi.World() != nil:
		b.readMPIT, b.allCvars = true, opt.AllCvars
	}
	if simulated {
		b.probe = simulatedProbe(c.Rank(), c.Size())
		b.lib = "simulated"
	} else {
		node := ""
		if mpi.World() != nil {
			node, _ = mpi.ProcessorName()
			b.lib, _ = mpi.LibraryVersion()
		}
		if node == "" {
			node, _ = os.Hostname()
		}
		if b.lib == "" {
			b.lib = unavailable("MPI is not initialized in this process (no MPI_Get_library_version)")
		}
		b.probe = local(node)
	}
	b.Sample()
	return b, nil
}

// Collect is Start followed by the exchange of the ranks' probes
// (collective, outside any timed part): an allreduce of one int64 and an
// allgather of the largest probe's length, so that every rank holds the
// same Record with every rank's binding at the start. Call Sample between
// batches and Finish at the end.
func Collect(c mpi.Comm, opt Options) (*Binding, error) {
	b, err := Start(c, opt)
	if err != nil {
		return nil, err
	}
	if err := b.exchange(c); err != nil {
		return nil, err
	}
	return b, nil
}

// exchange builds the record from every rank's probe, with rank 0's start
// time and library. In a simulated world every rank's probe is known
// without communicating (simulatedProbe), so the record is built locally
// and the world's traffic, and with it its virtual times, stay what they
// are without provenance.
func (b *Binding) exchange(c mpi.Comm) error {
	if b.simulated {
		all := make([]rankProbe, c.Size())
		for r := range all {
			all[r] = simulatedProbe(r, c.Size())
		}
		b.rec = combine(all)
		b.rec.Simulated = true
		b.rec.StartUTC, b.rec.Library = b.start, b.lib // rank 0's start: Finish
		b.rec.MPIT = b.mpit
		return nil
	}
	probes, err := allgatherJSON(c, struct {
		rankProbe
		Start int64  `json:"start_unix_ns"`
		Lib   string `json:"library"`
	}{b.probe, b.start.UnixNano(), b.lib})
	if err != nil {
		return fmt.Errorf("provenance: %w", err)
	}
	all := make([]rankProbe, len(probes))
	var start int64
	lib := ""
	for i, raw := range probes {
		var p struct {
			rankProbe
			Start int64  `json:"start_unix_ns"`
			Lib   string `json:"library"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return fmt.Errorf("provenance: rank %d's probe: %w", i, err)
		}
		all[i] = p.rankProbe
		if i == 0 {
			start, lib = p.Start, p.Lib
		}
	}
	b.rec = combine(all)
	b.rec.Simulated = b.simulated
	b.rec.StartUTC, b.rec.Library = time.Unix(0, start).UTC(), lib
	b.rec.MPIT = b.mpit
	return nil
}

// Record returns the record as collected (MaskEnd and the samples are
// filled in by Finish); nil before Collect or Finish.
func (b *Binding) Record() *Record { return b.rec }

// Sample notes the CPU the calling thread is on. It reads a file (a few
// µs): call it between batches, never inside a timed span.
func (b *Binding) Sample() {
	if b != nil {
		b.sample()
	}
}

// sample is Sample, returning the CPU read (negative: none).
func (b *Binding) sample() int {
	cpu, src := b.rank, "simulated"
	switch {
	case b.readCPU != nil:
		cpu, src = b.readCPU()
	case !b.simulated:
		cpu, src = currentCPU()
	}
	b.source = src
	if cpu < 0 {
		return cpu
	}
	b.samples++
	if b.last >= 0 && cpu != b.last {
		b.moves++
	}
	b.last = cpu
	if !slices.Contains(b.cpus, cpu) {
		b.cpus = append(b.cpus, cpu)
	}
	return cpu
}

// sampleRecord is one rank's end-of-run contribution to Finish.
type sampleRecord struct {
	MaskEnd    string `json:"mask_end"`
	CPUs       []int  `json:"cpus"`
	Samples    int    `json:"samples"`
	Migrations int    `json:"migrations"`
	Batches    int    `json:"batches"`
	Moved      int    `json:"moved_batches"`
	Source     string `json:"source"`
	// Start is the rank's start time (Unix ns); a simulated record takes
	// rank 0's from here, since its probes were not exchanged.
	Start int64 `json:"start_unix_ns"`
}

// Finish takes the last sample and the end mask and combines every rank's
// into the record (collective: the same exchange as Collect, twice when
// the binding was only Started), which it returns, the same on every rank. when says when the samples were taken,
// for the record (BindingSamples).
func (b *Binding) Finish(c mpi.Comm, when string) (*Record, error) {
	if b.rec == nil {
		if err := b.exchange(c); err != nil {
			return nil, err
		}
	}
	b.Sample()
	if b.readMPIT {
		b.mpit, b.cvals = readMPIT(b.allCvars)
		b.readMPIT = false
		b.rec.MPIT = b.mpit
	}
	if b.rank == 0 && len(b.expect) > 0 {
		if b.mpit == nil { // NoMPIT, or MPI not initialized
			b.mpit = &MPIT{DefaultsFrom: unavailable("MPI_T not read"), Error: "MPI_T not read in this run"}
			b.rec.MPIT = b.mpit
		}
		b.mpit.Checked, b.expect = checkCvars(b.expect, b.cvals), nil
	}
	s := sampleRecord{CPUs: slices.Sorted(slices.Values(b.cpus)), Samples: b.samples, Migrations: b.moves, Source: b.source,
		Batches: b.batches, Moved: b.moved, Start: b.start.UnixNano()}
	if b.simulated {
		s.MaskEnd = strconv.Itoa(b.rank)
	} else {
		s.MaskEnd = affinity()
	}
	got, err := allgatherJSON(c, s)
	if err != nil {
		return nil, fmt.Errorf("provenance: %w", err)
	}
	for i, g := range got {
		var r sampleRecord
		if err := json.Unmarshal(g, &r); err != nil {
			return nil, fmt.Errorf("provenance: rank %d's samples: %w", i, err)
		}
		if i == 0 && b.simulated {
			b.rec.StartUTC = time.Unix(0, r.Start).UTC()
		}
		if i < len(b.rec.Ranks) {
			k := &b.rec.Ranks[i]
			k.MaskEnd, k.CPUs, k.Samples, k.Migrations, k.CPUSource = r.MaskEnd, r.CPUs, r.Samples, r.Migrations, r.Source
			k.Batches, k.MovedBatches = r.Batches, r.Moved
		}
	}
	b.rec.BindingSamples = when
	return b.rec, nil
}

// simulatedProbe is the fake probe of rank r of a simulated world of np
// ranks: one node "simulated" with np CPUs, rank r bound to CPU r.
func simulatedProbe(r, np int) rankProbe {
	sim := unavailable("simulated")
	return rankProbe{Node: "simulated", OnlineCPUs: formatList(seq(np)), Mask: strconv.Itoa(r), CPU: r, CPUSource: "simulated",
		Clock: "simulated", Adjtimex: Adjtimex{State: "TIME_OK", Synchronized: true},
		CPUFacts: CPUFacts{Governor: sim, MinKHz: sim, MaxKHz: sim, CurKHz: sim, Turbo: sim, SMT: sim, THP: sim, THPDefrag: sim},
		Launcher: Launcher{Name: "mpitest", How: "simulated"}}
}

func seq(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// combine builds the record from every rank's probe: nodes in order of
// their lowest rank with the facts their lowest rank read, the launcher
// rank 0 found, and the ranks' start masks and the overlaps.
func combine(all []rankProbe) *Record {
	rec := &Record{Version: recordVersion}
	if len(all) > 0 {
		rec.Launcher = all[0].Launcher
	}
	idx := map[string]int{}
	for r, p := range all {
		i, ok := idx[p.Node]
		if !ok {
			i = len(rec.Nodes)
			idx[p.Node] = i
			rec.Nodes = append(rec.Nodes, Node{Name: p.Node, OnlineCPUs: p.OnlineCPUs, ClockSource: p.Clock, Adjtimex: p.Adjtimex, CPU: p.CPUFacts})
		}
		rec.Nodes[i].Ranks = append(rec.Nodes[i].Ranks, r)
		k := Rank{Rank: r, Node: p.Node, MaskStart: p.Mask, CPUSource: p.CPUSource}
		if m, err := parseList(p.Mask); err == nil && len(m) > 0 {
			if on, err := parseList(p.OnlineCPUs); err == nil && len(on) > 0 {
				k.Bound = len(m) < len(on)
			}
		}
		rec.Ranks = append(rec.Ranks, k)
	}
	for i := range rec.Nodes {
		rec.Nodes[i].Overlaps = overlaps(rec.Nodes[i].Ranks, rec.Ranks)
	}
	return rec
}

// overlaps groups a node's ranks whose start masks overlap, transitively
// (union-find over the CPUs), and returns the groups of two or more.
func overlaps(ranks []int, all []Rank) []Overlap {
	owner := map[int]int{} // CPU → first rank seen on it
	parent := map[int]int{}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	masks := map[int][]int{}
	for _, r := range ranks {
		parent[r] = r
		m, err := parseList(all[r].MaskStart)
		if err != nil {
			continue
		}
		masks[r] = m
		for _, cpu := range m {
			if o, ok := owner[cpu]; ok {
				parent[find(r)] = find(o)
			} else {
				owner[cpu] = r
			}
		}
	}
	groups := map[int][]int{}
	var roots []int
	for _, r := range ranks {
		root := find(r)
		if _, ok := groups[root]; !ok {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], r)
	}
	var out []Overlap
	for _, root := range roots {
		g := groups[root]
		if len(g) < 2 {
			continue
		}
		var cpus []int
		for _, r := range g {
			cpus = append(cpus, masks[r]...)
		}
		slices.Sort(cpus)
		cpus = slices.Compact(cpus)
		out = append(out, Overlap{Ranks: g, CPUs: formatList(cpus), Shared: len(g) > len(cpus)})
	}
	return out
}

// allgatherJSON gives every rank every rank's JSON encoding of v: an
// allreduce of the largest length and one allgather of that many bytes per
// rank (symmetric).
func allgatherJSON(c mpi.Comm, v any) ([][]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	mx := []int64{0}
	if err := mpi.Allreduce(c, []int64{int64(len(b))}, mx, mpi.Max); err != nil {
		return nil, err
	}
	n := int(mx[0])
	send := make([]byte, n)
	copy(send, b)
	recv := make([]byte, n*c.Size())
	if err := mpi.Allgather(c, send, recv); err != nil {
		return nil, err
	}
	out := make([][]byte, c.Size())
	for i := range out {
		out[i] = bytes.TrimRight(recv[i*n:(i+1)*n], "\x00")
	}
	return out, nil
}
