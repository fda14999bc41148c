// Command candidates measures, inside one Go rank, the candidates for what
// separates the engine from a plain C loop at equal thread level: buffers from the Go heap versus page-aligned memory outside it, and
// the warm-up length; it also reports the runtime's threads and the CPUs
// they may run on (under mpirun's binding, the rank's core).
//
// Variants alternate in blocks (A B A B …) inside the same process, so
// that the machine's load and state changes hit both; rank 0 prints the
// median of the per-block median ratios and their range.
//
//	mpirun -np 2 go -C bench run ./fidelity/candidates [-blocks 40] [-per 500] [-bytes 8]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	blocks := flag.Int("blocks", 40, "blocks per variant")
	per := flag.Int("per", 500, "observations per block")
	bytes := flag.Int("bytes", 8, "message size (MPI_DOUBLE elements × 8)")
	flag.Parse()
	if err := run(*blocks, *per, *bytes); err != nil {
		fmt.Fprintln(os.Stderr, "candidates:", err)
		os.Exit(1)
	}
}

func median(v []timing.Ticks) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

// switches returns the context switches (voluntary + involuntary) of every
// thread of this process, by thread id.
func switches() map[int]int {
	m := map[int]int{}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/status")
		if err != nil {
			continue
		}
		var tid int
		fmt.Sscan(t.Name(), &tid)
		for _, line := range strings.Split(string(b), "\n") {
			var n int
			if _, err := fmt.Sscanf(line, "voluntary_ctxt_switches: %d", &n); err == nil {
				m[tid] += n
			} else if _, err := fmt.Sscanf(line, "nonvoluntary_ctxt_switches: %d", &n); err == nil {
				m[tid] += n
			}
		}
	}
	return m
}

func run(blocks, per, size int) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	w := mpi.World()
	clk := timing.NewMonotonic()
	heapS, heapR := make([]byte, size), make([]byte, size)
	mm, err := unix.Mmap(-1, 0, 2*4096+2*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	pageS, pageR := mm[:size], mm[4096+size:][:size]
	obs := func(s, r []byte) *mpi.Observation {
		return &mpi.Observation{Call: mpi.CallAllreduce, Send: s, Recv: r, Count: size / 8, Type: mpi.Float64,
			Op: mpi.Sum, Sync: mpi.SyncBarrier}
	}
	variants := []*mpi.Observation{obs(heapS, heapR), obs(pageS, pageR)}
	names := []string{"Go heap", "page-aligned mmap"}
	starts, ends := make([]timing.Ticks, per), make([]timing.Ticks, per)
	durs := make([]timing.Ticks, per)
	all := make([]float64, 2)
	// Cold start: the first observations after MPI_Init, by position.
	first := make([]timing.Ticks, 1000)
	fs, fe := make([]timing.Ticks, 1000), make([]timing.Ticks, 1000)
	if err := mpi.ObserveBatch(w, variants[0], clk, nil, fs, fe); err != nil {
		return err
	}
	for i := range first {
		first[i] = fe[i] - fs[i]
	}
	ratios := make([]float64, 0, blocks)
	for b := range blocks {
		for v, o := range variants {
			if err := mpi.ObserveBatch(w, o, clk, nil, starts, ends); err != nil {
				return err
			}
			for i := range durs {
				durs[i] = ends[i] - starts[i]
			}
			all[v] = median(durs)
		}
		// Local medians, max over ranks.
		red := make([]float64, 2)
		if err := mpi.Allreduce(w, all, red, mpi.Max); err != nil {
			return err
		}
		if b > 0 { // the first block is warm-up
			ratios = append(ratios, red[1]/red[0])
		}
	}
	// The runtime's other threads during one long batch: how often each
	// thread of this process was switched in (voluntary context switches
	// count its wake-ups) while the measuring thread was inside C.
	long := 20000
	ls, le := make([]timing.Ticks, long), make([]timing.Ticks, long)
	before := switches()
	t0 := clk.Now()
	if err := mpi.ObserveBatch(w, variants[0], clk, nil, ls, le); err != nil {
		return err
	}
	batchS := clk.Freq().Seconds(clk.Now() - t0)
	after := switches()
	if w.Rank() != 0 {
		return nil
	}
	slices.Sort(ratios)
	me := unix.Gettid()
	fmt.Printf("one batch of %d observations (%.1f ms): context switches per thread (tid: voluntary+involuntary):", long, batchS*1e3)
	for tid, n := range after {
		mark := ""
		if tid == me {
			mark = " (measuring)"
		}
		fmt.Printf(" %d%s: %d", tid, mark, n-before[tid])
	}
	fmt.Println()
	var cpus unix.CPUSet
	_ = unix.SchedGetaffinity(0, &cpus)
	tasks, _ := os.ReadDir("/proc/self/task")
	fmt.Printf("rank 0: GOMAXPROCS %d, %d OS threads, may run on %d CPU(s); thread level requested %s, provided %s\n",
		runtime.GOMAXPROCS(0), len(tasks), cpus.Count(), mpi.ThreadRequested().MPIName(), mpi.ThreadProvided())
	fmt.Printf("allreduce %d B, %d blocks of %d: %s / %s per-block median ratio: median %.3f [%.3f–%.3f]\n",
		size, len(ratios), per, names[1], names[0], ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
	fmt.Printf("warm-up (rank 0, local ns): median of observations 0–9 %.0f, 10–99 %.0f, 100–999 %.0f\n",
		median(first[:10]), median(first[10:100]), median(first[100:]))
	return nil
}
