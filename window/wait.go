package window

import (
	"runtime"
	"sync"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
)

// What a rank does while it waits for an observation's start.
//
// Every rank busy-waits on its clock inside the batch's single cgo call
// (mpi.ObserveBatch): no MPI call, no yield, no sleep (unless
// Config.SleepGuard says otherwise). Nothing else was better, measured on
// the virtual cluster (2 nodes × 1 rank, TCP between namespaces, 8-byte
// allreduce, 2000 observations per window, pure-C loop with a perfect
// global clock): with the ranks on separate cores, polling MPI
// (MPI_Iprobe) or yielding (sched_yield) until 20 µs before each start left
// the valid median where the spin had it (Open MPI 10.7-10.8 µs, MPICH
// 8.9-11.0 µs, barrier sync 10.7 and 9.1-9.3 µs) and the invalid share
// between 2 and 13 % for all three. Whether the peer's message needs the
// waiting rank's MPI progress was not the question: Open MPI's TCP
// transport writes a small message to the socket inside the call, and
// the kernel delivers it in the sender's own system call.
//
// What made every Open MPI window on the virtual cluster invalid (1000 of
// 1000, each as long as its window) was the placement: each node's mpirun
// daemon sees the whole machine and bound its first rank to core 0, so both
// ranks shared one core, and a rank spinning towards its next start held
// the core its peer needed to finish the previous operation
// (vcluster.LauncherArgs now passes --bind-to none).
//
// While a batch runs, the process holds runtime.GOMAXPROCS at 1
// (holdOneP). With more Ps, a goroutine inside a long cgo call keeps its P
// for 10 ms before the Go runtime's monitor thread (sysmon) takes it back;
// until then sysmon polls every 20 µs (86 µs with the kernel's 50 µs timer
// slack), and after each take-back it starts over: about 50 wake-ups in
// every 10 ms batch, then 0.1, 0.15, 0.23, 0.39, 0.71 ms apart (the "0.3–0.7
// ms rhythm" an earlier noise guard learned). On a machine whose cores are
// all busy, each wake-up preempts a rank, and one near a deadline makes
// the observation late: MPICH, whose ranks are not bound and so got
// GOMAXPROCS 2, lost 6.0-8.2 % of its windows on one host against its C
// reference's 1.8-3.1 %, and 2.1-2.3 % with GOMAXPROCS=1 (sysmon traced
// with perf). With one P, sysmon takes the P back at its first look, finds
// every P idle and sleeps until the batch returns.

// waitSpin is the Wait.Deadline of the windowed methods: a busy-wait
// reading the clock, in C, without MPI calls or yields.
const waitSpin = "spin"

// oneP counts the Runs that hold GOMAXPROCS at 1 in this process, and keeps
// the value to restore when the last one ends.
var oneP struct {
	sync.Mutex
	holders int
	prev    int
}

// holdOneP sets GOMAXPROCS to 1 until release is called. Holds nest (the
// Syncs of several communicators in one process): the value before the
// first hold comes back when the last one is released.
func holdOneP() (release func()) {
	oneP.Lock()
	defer oneP.Unlock()
	if oneP.holders == 0 {
		oneP.prev = runtime.GOMAXPROCS(1)
	}
	oneP.holders++
	return func() {
		oneP.Lock()
		defer oneP.Unlock()
		if oneP.holders--; oneP.holders == 0 {
			runtime.GOMAXPROCS(oneP.prev)
		}
	}
}

// holdsOneP reports whether Run holds GOMAXPROCS at 1: with
// Config.ProcHold ProcHoldAuto, when its observations are a built-in call
// that runs in C through a communicator that executes a batch in one step
// (mpi.BatchObserver, the real binding's single cgo call), with no Go code
// between them: batched, or the overlap measurement's one cgo call per
// observation (observeBatch). A simulated communicator runs ranks as
// goroutines and is left alone, and so is RunFunc, whose work may use
// goroutines of its own, and round-time, which waits in Go between its
// observations.
//
// The overlap measurement is held too: MPICH's ranks are not bound, so
// they got GOMAXPROCS 2, and without the hold sysmon woke every 20 µs
// through the first millisecond of each observation, which is its pure
// phase, and MPI_Iallreduce's pure time read up to 1.13× osu_iallreduce's
// (docs/windows.md, "What a rank does while it waits").
func (s *Sync) holdsOneP() bool {
	if s.cfg.ProcHold == ProcHoldNever || !s.batched() || s.cfg.Method == RoundTime {
		return false
	}
	_, ok := s.comm.(mpi.BatchObserver)
	return ok
}

// Wait describes what the ranks did while they waited for each observation
// of the last Run (the sidecar's wait record).
func (s *Sync) Wait() rawdata.Wait {
	w := rawdata.Wait{GoMaxProcs: s.procs, GoMaxProcsHold: s.cfg.ProcHold.String()}
	if w.GoMaxProcs == 0 { // no Run yet
		w.GoMaxProcs = runtime.GOMAXPROCS(0)
	}
	if s.cfg.Method.Windowed() {
		w.Deadline = waitSpin
		w.SleepGuardS = s.cfg.SleepGuard.Seconds()
	}
	return w
}
