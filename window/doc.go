// Package window decides when each observation of an MPI benchmark starts —
// process synchronization, Hunold & Carpen-Amarie 2016, §3 and §4.6 — and
// records what happened in each observation.
//
// # Methods
//
// A Method names how the ranks are brought to a common start. Its name (as
// ParseMethod and the command line spell it) and its constant:
//
//	barrier           Barrier           MPI_Barrier before every observation (IMB, OSU)
//	double_barrier    DoubleBarrier     two MPI_Barrier calls (reduces the barrier's exit skew)
//	dissemination     Dissemination     our own dissemination barrier, ⌈log2 P⌉ sendrecv rounds
//	window            Fixed             fixed window (Hunold & Carpen-Amarie 2016, Alg. 1;
//	                                    SKaMPI, ReproMPI): rank 0
//	                                    broadcasts a start time t0 in global time, observation i
//	                                    of a batch starts at t0 + i·window on every rank
//	adaptive_skampi   AdaptiveSKaMPI    window, and after each batch with ≥ 25% invalid
//	                                    observations window = max(2·window, 1.5·mean duration)
//	adaptive_nbcbench AdaptiveNBCBench  window, and a batch with ≥ 25% invalid observations is
//	                                    marked discarded and repeated with window ×1.5 (NBCBench)
//	roundtime         RoundTime         every round: barrier, rank 0 picks start = now +
//	                                    k·(measured MPI_Bcast time) and broadcasts it in global
//	                                    time; a late start invalidates the observation, which is
//	                                    redone; a time budget ends the experiment
//
// The adaptive policies count invalid observations, as published; with
// Config.AdaptOn = AdaptOnExpired they count only expired ones. A late start
// on a rank that was idle until its deadline is noise (an interrupt, a
// paused CPU), which no window prevents; counting it only widens the window
// on a noisy machine (timing.MeasureNoise tells how noisy a machine is).
// Where the policies and the window's defaults depart from the published
// rules (the threshold, what is repeated, no halving of the number of
// observations, the cap on the window, the late tolerance and the lead of a
// batch's start), docs/papers.md lists them with the paper's values.
//
// The wait itself — barrier or busy-wait for the deadline — runs inside
// mpi.Comm.Observe together with the timestamps and the timed call (the
// critical path, one cgo call with the real binding). Go converts window
// starts from global time to local ticks (GlobalClock.ToLocal) before, and
// interprets the timestamps after.
//
// # What runs and what is recorded
//
// Sync.Run takes a built-in call (an mpi.Observation), Sync.RunFunc the
// caller's own code, and both fill a Record with what happened in each
// observation: its start and end ticks, deadline and lateness, buffer
// offset, error code (the late, expired and discarded flags, reduced
// across ranks) and, for the overlap measurement of a non-blocking
// collective, the ticks of its pure phase and of its compute kernel. Run
// neither wraps the communicator nor interprets the timestamps: the
// completion time is package completion's definition, evaluated by the
// caller.
//
// # The wait
//
// Until a window start, every rank busy-waits on its clock in C: no MPI
// call, no yield (Sync.Wait, recorded in the sidecar as the experiment's
// wait). While a batch runs in one cgo call, Run holds runtime.GOMAXPROCS
// at 1 unless Config.ProcHold says never, so that the Go runtime's monitor
// thread sleeps instead of waking every 20-86 µs and preempting the
// busy-waiting ranks of a machine whose cores are all busy. wait.go gives the measurements behind both choices:
// polling MPI or yielding before a start bought nothing across
// nodes, and the monitor thread cost MPICH's unbound ranks 2-3× the C
// reference's invalid share on one host.
//
// # Flags
//
// An observation started late when its first timestamp is more than
// Config.LateTolerance after its deadline; its window expired when its end
// is later than the next observation's deadline. Each rank computes its own
// flags and they are reduced across ranks (bitwise OR, which is the MAX of
// each flag). The error codes of the raw data are the bits of Code:
// CodeLate = 1, CodeExpired = 2 (3 = both), CodeDiscarded = 4 (a batch the
// NBCBench policy repeated). Invalid observations stay in the raw data; the
// analysis excludes them by default and reports how many there were.
//
// # Noise guard
//
// Config.NoiseGuard places the windowed methods' starts where
// no periodic noise is predicted. Rank 0 learns each node's periodic
// noise sources (package noiseguard: period, phase, duration, a drifting
// phase, several at once) from the late observations of the node's ranks:
// their deadlines, and how late they started, which is when the detour that
// held the CPU ended. Each rank's lateness reaches rank 0 in the batch's
// reduction, one block per node (NoiseGuard's nodes, from the processor
// names). Rank 0 then places each batch's starts on the window grid,
// skipping every slot whose span [start − NoiseGuardBefore, start + the
// operation's mean duration] a predicted detour of some node overlaps, and
// broadcasts the batch's start times; round-time moves its single start
// the same way. A skipped slot costs a window of time, not an observation.
// It is a bias by design: observations that would overlap periodic noise
// are not taken. Use it to measure the operation; leave it off (the
// default) to measure the operation as an application meets it.
//
// # Barriers
//
// BarrierExitSkew measures how far apart in global time the ranks leave a
// barrier (Hunold & Carpen-Amarie 2016, Fig. 10).
//
// # Cache control
//
// Sync.Buffers (package cache) places each observation's buffers, cycled
// or random offsets and cold caches, inside the batches.
package window
