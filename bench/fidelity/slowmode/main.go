//go:build cgo && !nompi

// Command slowmode takes apart, inside one Go rank, what separates
// `reprobench run` from the plain C loop of bench/fidelity/fidelity.c
// (Open MPI runs, from one mpirun to the next, in a fast or a slow state;
// docs/fidelity.md says what is known of them).
//
// The state can change from one mpirun to the next and, more rarely, inside
// one, so the variants alternate in blocks (A B C … A B C …) inside the same
// process:
//
//	cloop-cbuf      fidelity.c's loop (MPI_Barrier; t0; MPI_Allreduce; t1,
//	                both timestamps stored after t1), compiled into this Go
//	                program, on buffers allocated as alloc.h does
//	                (posix_memalign, 1 MiB, page-aligned)
//	cloop-gobuf     the same loop on the engine's buffers (Go heap)
//	cloop-early     the same loop storing t0 before the call, between the
//	                two clock readings, as the engine's rb_observe does
//	engine-gobuf    mpi.ObserveBatch on cache.NewBuffers' buffers (the
//	                engine's loop, rb_observe_batch in mpi/rbmpi.h)
//	engine-cbuf     mpi.ObserveBatch on the C buffers
//	engine-fresh    engine-gobuf writing its timestamps to new, never written
//	                arrays each block, as the engine's Record is
//	engine-run      reprobench.Run with the experiment `reprobench run`
//	                makes by default (100 warm-up observations, a new Record)
//
// For each block rank 0 gathers every rank's t0 and t1 (CLOCK_MONOTONIC, one
// clock for the ranks of a host) and writes to -out: the median and p99 of
// the completion time (max over ranks of t1 − t0), each rank's median
// t1 − t0, the median barrier-exit spread (max − min t0 over ranks: how far
// apart the ranks left the barrier), the share of observations in which
// rank 0 left first, and the share in which the rank that left first is
// the one with the longest t1 − t0 (it waits for the other's data). It
// prints per variant the medians over blocks, and the process: GOMAXPROCS,
// OS threads, CPUs allowed, thread level, and every thread's context
// switches during one long block of each variant (who woke up while the
// rank measured).
//
// What it showed (bench/fidelity/README.md, "The slow state"): with Open
// MPI the state is set by the message history, not by Go. Variants that
// follow each other in one process see Open MPI's shared-memory fast-box
// ring at different positions, and one 8-byte message more before the
// first block (-pre 1 instead of 0) swaps which of the C loop and the
// engine is fast (bench/fidelity/slowmode.sh, PRE="0 1"; the ring model in
// bench/fidelity/fbox_readpos.py); with the fast boxes off
// (OMPI_MCA_btl_vader_fbox_max=0) the swap disappears. Compare variants
// over many mpiruns and several -pre values, never one.
//
//	mpirun -np 2 slowmode [-blocks 40] [-per 2000] [-variants a,b] [-pre K] [-out blocks.csv]
package main

/*
#include "cloop.h"
*/
import "C"

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

func main() {
	blocks := flag.Int("blocks", 40, "blocks per variant (the first is warm-up and not reported)")
	per := flag.Int("per", 2000, "observations per block")
	long := flag.Int("long", 20000, "observations of the long block whose context switches are counted")
	out := flag.String("out", "", "CSV of the per-block medians (rank 0); empty: none")
	only := flag.String("variants", "", "comma-separated subset of the variants (default: all)")
	pre := flag.Int("pre", 0, "8-byte messages rank 0 sends to rank 1 before the first block (each moves Open MPI's shared-memory ring from 0 to 1 by 32 bytes)")
	flag.Parse()
	if err := run(*blocks, *per, *long, *pre, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "slowmode:", err)
		os.Exit(1)
	}
}

// variant is one way of timing len(t0) observations; it writes each
// observation's start and end on this rank to t0 and t1, in ns of
// CLOCK_MONOTONIC (shared by the ranks of one host).
type variant struct {
	name string
	run  func(t0, t1 []int64) error
	// all, when set, replaces run: it times n observations and fills all
	// on rank 0 with every rank's t0 and t1 (the layout of the gather in
	// run; all is nil on the other ranks).
	all func(all []int64, n int) error
}

func run(blocks, per, long, pre int, out, only string) error {
	if blocks < 2 || per < 1 || long < 1 {
		return fmt.Errorf("need -blocks >= 2, -per >= 1, -long >= 1")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	w := mpi.World()
	const bytes, count = 8, 1
	clk := timing.NewMonotonic()

	cs, cr := C.sm_alloc(bytes), C.sm_alloc(bytes)
	if cs == nil || cr == nil {
		return fmt.Errorf("posix_memalign failed")
	}
	cbufS := unsafe.Slice((*byte)(cs), bytes)
	cbufR := unsafe.Slice((*byte)(cr), bytes)
	// The engine's buffers, as engine.runExperiment allocates them for
	// --cache warm.
	gb := cache.NewBuffers(cache.Warm, bytes, bytes, 1, 0, 1)

	starts, ends := make([]timing.Ticks, max(per, long)), make([]timing.Ticks, max(per, long))
	cloop := func(s, r []byte, early bool) func(t0, t1 []int64) error {
		return func(t0, t1 []int64) error {
			sp, rp := unsafe.Pointer(&s[0]), unsafe.Pointer(&r[0])
			p0, p1 := (*C.int64_t)(unsafe.Pointer(&t0[0])), (*C.int64_t)(unsafe.Pointer(&t1[0]))
			if early {
				C.sm_cloop_early(sp, rp, count, C.int(len(t0)), p0, p1)
			} else {
				C.sm_cloop(sp, rp, count, C.int(len(t0)), p0, p1)
			}
			return nil
		}
	}
	epoch := clk.Source().Epoch // engine ticks + epoch = CLOCK_MONOTONIC ns
	batch := func(s, r []byte, fresh bool) func(t0, t1 []int64) error {
		o := &mpi.Observation{Call: mpi.CallAllreduce, Send: s, Recv: r, Count: count, Type: mpi.Float64,
			Op: mpi.Sum, Sync: mpi.SyncBarrier}
		return func(t0, t1 []int64) error {
			n := len(t0)
			st, en := starts[:n], ends[:n]
			if fresh { // as the engine's Record: new, never written memory
				st, en = make([]timing.Ticks, n), make([]timing.Ticks, n)
			}
			if err := mpi.ObserveBatch(w, o, clk, nil, st, en); err != nil {
				return err
			}
			for i := range t0 {
				t0[i], t1[i] = int64(st[i])+epoch, int64(en[i])+epoch
			}
			return nil
		}
	}
	// engine-run: the experiment `reprobench run` makes by default, run
	// by reprobench.Run with the per-rank file, which rank 0 reads back;
	// each rank's local times are on its own clock, so the epochs are
	// gathered to turn them into CLOCK_MONOTONIC.
	epochs := make([]int64, w.Size())
	if err := mpi.Allgather(w, []int64{epoch}, epochs); err != nil {
		return err
	}
	runDir, err := os.MkdirTemp("", "slowmode")
	if err != nil {
		return err
	}
	defer os.RemoveAll(runDir)
	runs := 0
	engineRun := func(all []int64, n int) error {
		ex := reprobench.Experiment{Call: mpi.CallAllreduce, MsizeBytes: bytes, Type: mpi.Float64, Nrep: n, Warmup: 100,
			Sync: window.Config{Method: window.Barrier}, Runtime: completion.Local, Cache: cache.Warm}
		runs++
		opt := reprobench.Options{Clock: clk, Dir: runDir, RunID: "slowmode", Mpirun: runs, PerRank: true, WindowBaseline: -1}
		res, err := reprobench.Run(w, []reprobench.Experiment{ex}, opt)
		if err != nil || w.Rank() != 0 {
			return err
		}
		return readRanks(res.Files.Ranks, all, n, epochs)
	}
	all := []variant{
		{name: "cloop-cbuf", run: cloop(cbufS, cbufR, false)},
		{name: "cloop-gobuf", run: cloop(gb.Send, gb.Recv, false)},
		{name: "cloop-early", run: cloop(cbufS, cbufR, true)},
		{name: "engine-gobuf", run: batch(gb.Send, gb.Recv, false)},
		{name: "engine-cbuf", run: batch(cbufS, cbufR, false)},
		{name: "engine-fresh", run: batch(gb.Send, gb.Recv, true)},
		{name: "engine-run", all: engineRun},
	}
	vs := all
	if only != "" {
		vs = nil
		for _, n := range strings.Split(only, ",") {
			i := slices.IndexFunc(all, func(v variant) bool { return v.name == n })
			if i < 0 {
				return fmt.Errorf("unknown variant %q", n)
			}
			vs = append(vs, all[i])
		}
	}

	for range pre {
		var err error
		switch w.Rank() {
		case 0:
			err = w.Send(gb.Send, 1, 7)
		case 1:
			err = w.Recv(gb.Recv, 0, 7)
		}
		if err != nil {
			return err
		}
	}
	p := w.Size()
	t0, t1 := make([]int64, per), make([]int64, per)
	mine := make([]int64, 2*per)
	var both []int64
	if w.Rank() == 0 {
		both = make([]int64, 2*per*p)
	}
	blk := make([][]pattern, len(vs)) // per variant, the measured blocks
	for b := range blocks {
		for v, va := range vs {
			if va.all != nil {
				if err := va.all(both, per); err != nil {
					return err
				}
				if w.Rank() == 0 && b > 0 {
					blk[v] = append(blk[v], analyse(both, per, p))
				}
				continue
			}
			if err := va.run(t0, t1); err != nil {
				return err
			}
			copy(mine, t0)
			copy(mine[per:], t1)
			if err := mpi.Gather(w, mine, both, 0); err != nil {
				return err
			}
			if w.Rank() == 0 && b > 0 { // the first block is warm-up
				blk[v] = append(blk[v], analyse(both, per, p))
			}
		}
	}

	// Who runs while the rank measures: every thread's context switches
	// during one long block of each variant.
	l0, l1 := make([]int64, long), make([]int64, long)
	sw := make([]string, len(vs))
	for v, va := range vs {
		if va.all != nil {
			sw[v] = "not counted"
			continue
		}
		before := switches()
		if err := va.run(l0, l1); err != nil {
			return err
		}
		sw[v] = diffSwitches(before, switches())
	}
	if w.Rank() != 0 {
		return nil
	}
	if out != "" {
		var rows []string
		for v, va := range vs {
			for b, pt := range blk[v] {
				rows = append(rows, fmt.Sprintf("%d,%s,%s", b+1, va.name, pt.csv()))
			}
		}
		if err := os.WriteFile(out, []byte("block,variant,"+patternHeader+"\n"+strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	var cpus unix.CPUSet
	_ = unix.SchedGetaffinity(0, &cpus)
	tasks, _ := os.ReadDir("/proc/self/task")
	fmt.Printf("rank 0: GOMAXPROCS %d, %d OS threads, %d CPU(s) allowed, thread level requested %s, provided %s, measuring thread %d\n",
		runtime.GOMAXPROCS(0), len(tasks), cpus.Count(), mpi.ThreadRequested().MPIName(), mpi.ThreadProvided(), unix.Gettid())
	fmt.Printf("per variant, medians over %d blocks of %d observations: completion time (max over ranks), each rank's t1−t0, "+
		"barrier-exit spread (max − min t0), share of observations rank 0 left the barrier first, share whose longest rank is the one that left first\n", blocks-1, per)
	for v, va := range vs {
		m := func(f func(pattern) float64) float64 {
			x := make([]float64, len(blk[v]))
			for i, pt := range blk[v] {
				x[i] = f(pt)
			}
			slices.Sort(x)
			return x[len(x)/2]
		}
		fmt.Printf("%-13s %5.0f ns  ranks %5.0f %5.0f ns  spread %5.0f ns  rank0 first %.2f  first waits %.2f  switches in %d obs: %s\n",
			va.name, m(func(p pattern) float64 { return p.median }), m(func(p pattern) float64 { return p.rank[0] }),
			m(func(p pattern) float64 { return p.rank[min(1, len(p.rank)-1)] }), m(func(p pattern) float64 { return p.spread }),
			m(func(p pattern) float64 { return p.firstRank0 }), m(func(p pattern) float64 { return p.firstWaits }), long, sw[v])
	}
	return nil
}

// readRanks reads a per-rank file (rawdata.RankColumns) of n observations
// into the gather layout of run, converting each rank's local seconds to
// CLOCK_MONOTONIC ns.
func readRanks(path string, all []int64, n int, epochs []int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: empty", path)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	for _, r := range rows[1:] {
		rep, e1 := strconv.Atoi(r[col["rep"]])
		rank, e2 := strconv.Atoi(r[col["rank"]])
		st, e3 := strconv.ParseFloat(r[col["local_start_s"]], 64)
		en, e4 := strconv.ParseFloat(r[col["local_end_s"]], 64)
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		base := rank * 2 * n
		all[base+rep] = epochs[rank] + int64(math.Round(st*1e9))
		all[base+n+rep] = epochs[rank] + int64(math.Round(en*1e9))
	}
	return nil
}

// pattern describes one block of observations of every rank.
type pattern struct {
	median, p99 float64   // of the completion time, max over ranks of t1 − t0 (ns)
	rank        []float64 // each rank's median t1 − t0 (ns)
	spread      float64   // median of max − min t0 over ranks: how far apart the ranks left the barrier (ns)
	firstRank0  float64   // share of observations in which rank 0 left the barrier first
	firstWaits  float64   // share in which the rank that left first has the longest t1 − t0
}

const patternHeader = "median_ns,p99_ns,rank0_ns,rank1_ns,spread_ns,first_rank0,first_waits"

func (p pattern) csv() string {
	r1 := p.rank[min(1, len(p.rank)-1)]
	return fmt.Sprintf("%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%.3f", p.median, p.p99, p.rank[0], r1, p.spread, p.firstRank0, p.firstWaits)
}

// analyse computes the pattern of a block from the gathered timestamps:
// rank r's t0 at all[r*2n : r*2n+n], its t1 after them.
func analyse(all []int64, n, p int) pattern {
	comp, spread := make([]float64, n), make([]float64, n)
	rank := make([][]float64, p)
	var first0, firstWaits int
	for r := range p {
		rank[r] = make([]float64, n)
	}
	for i := range n {
		lo, hi, first, longest := int64(math.MaxInt64), int64(math.MinInt64), 0, 0
		var maxd int64 = -1
		for r := range p {
			s, e := all[r*2*n+i], all[r*2*n+n+i]
			rank[r][i] = float64(e - s)
			if s < lo {
				lo, first = s, r
			}
			hi = max(hi, s)
			if e-s > maxd {
				maxd, longest = e-s, r
			}
		}
		comp[i], spread[i] = float64(maxd), float64(hi-lo)
		if first == 0 {
			first0++
		}
		if first == longest {
			firstWaits++
		}
	}
	med := func(x []float64) float64 { s := slices.Clone(x); slices.Sort(s); return s[len(s)/2] }
	pt := pattern{median: med(comp), spread: med(spread), rank: make([]float64, p),
		firstRank0: float64(first0) / float64(n), firstWaits: float64(firstWaits) / float64(n)}
	s := slices.Clone(comp)
	slices.Sort(s)
	pt.p99 = s[min(n-1, n*99/100)]
	for r := range p {
		pt.rank[r] = med(rank[r])
	}
	return pt
}

// switches returns each thread's voluntary and involuntary context switches
// by thread id, from /proc/self/task/*/status.
func switches() map[int][2]int {
	m := map[int][2]int{}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/status")
		if err != nil {
			continue
		}
		var tid int
		fmt.Sscan(t.Name(), &tid)
		var c [2]int
		for _, line := range strings.Split(string(b), "\n") {
			var n int
			if _, err := fmt.Sscanf(line, "voluntary_ctxt_switches: %d", &n); err == nil {
				c[0] = n
			} else if _, err := fmt.Sscanf(line, "nonvoluntary_ctxt_switches: %d", &n); err == nil {
				c[1] = n
			}
		}
		m[tid] = c
	}
	return m
}

// diffSwitches formats the switches between two snapshots, one
// "tid:vol+invol" per thread that switched.
func diffSwitches(before, after map[int][2]int) string {
	me := unix.Gettid()
	var parts []string
	tids := make([]int, 0, len(after))
	for t := range after {
		tids = append(tids, t)
	}
	slices.Sort(tids)
	for _, t := range tids {
		a, b := after[t], before[t]
		dv, di := a[0]-b[0], a[1]-b[1]
		if dv == 0 && di == 0 {
			continue
		}
		mark := ""
		if t == me {
			mark = "*"
		}
		parts = append(parts, fmt.Sprintf("%d%s:%d+%d", t, mark, dv, di))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}
