// Package mpitest provides a simulated MPI world for testing code written
// against mpi.Comm, in the spirit of net/http/httptest: the same interface
// as the real binding, plus what no cluster can tell you — the true offset
// and drift of every clock at every instant.
//
// New creates a World of P ranks; World.Run runs a function on every rank
// concurrently, each in its own goroutine, handing it a *Rank with a
// communicator (Rank.Comm, an mpi.Comm implementing every operation,
// sub-communicators included) and a simulated clock (Rank.Clock, a
// timing.Clock ticking in nanoseconds).
//
// # Virtual time
//
// Each rank has its own true (virtual) time in seconds, starting at 0. It
// advances only through the simulation:
//
//   - reading the rank's clock costs the clock's read overhead, so busy-wait
//     loops on a clock terminate;
//   - Rank.Sleep stands for computation or waiting; the rank's clock is a
//     timing.Sleeper with the same Sleep, so library code that waits on a
//     clock (clocksync's learners and Harness, window's sleep guard) waits
//     in virtual time without being told;
//   - a message sent at true time s arrives at s + latency (see Latency); a
//     receive completes at max(receiver's time, arrival); a sender pays the
//     message's injection time bytes/bandwidth, and so does the receiver's
//     ingress, one message after the other; sends are eager (buffered, they
//     never wait for the receiver), except a blocking Send above
//     Config.EagerLimit, which waits for its receive (rendezvous): it
//     returns, and its data arrives, a latency after the receive is posted,
//     and a program that relies on buffering deadlocks as it can on a real
//     machine;
//   - collectives are built from point-to-point messages (see Collectives)
//     and cost what their messages cost.
//
// Real time plays no part: a simulated hour passes in microseconds.
//
// # Collectives
//
// Collectives use point-to-point messages on a context of their own, so
// they never match user messages:
//
//	Barrier                       dissemination, ⌈log2 P⌉ rounds of zero-byte messages
//	Bcast                         binomial tree from the root
//	Reduce                        binomial tree to the root
//	Allreduce                     Reduce to rank 0, then Bcast
//	Scan, Exscan                  recursive doubling (Hillis–Steele), ⌈log2 P⌉ rounds
//	Gather, Scatter               linear: the root exchanges one message with every rank
//	Allgather                     Gather to rank 0, then Bcast
//	Alltoall                      pairwise exchange, P−1 rounds
//	ReduceScatterBlock            Reduce to rank 0, then Scatter
//	Split, SplitShared            Allgather of (color, key); Sub needs no messages
//
// Reductions combine in a fixed order, so floating-point results are
// identical on every rank and in every run.
//
// Bcast, Reduce and Allreduce have other algorithms too, selected as a
// library's are, by control variables: RBSIM_<COLL>_ALGORITHM (auto,
// binomial, linear, segmented) and RBSIM_<COLL>_SEGSIZE, set in
// Config.Cvars (CvarsFromEnv reads them from an mpirun's environment) and
// reported, with their defaults and enumerations, by every communicator's
// ControlVariables (mpi.ControlVariableSource), the simulated MPI_T table
// (algorithms.go gives the costs).
//
// The mock-ups of the performance guidelines (mpi/guide.go, such as
// Reduce+Bcast) compose these collectives as the C binding composes MPI's;
// Config.CallDelay adds a per-call overhead, to make one call slow at one
// size (guide.go).
//
// Comm.Observe runs an mpi.Observation in virtual time: the wait (a
// dissemination barrier for SyncBarrier, SyncDoubleBarrier and
// SyncDissemination; for SyncDeadline the busy-wait loop
// `for clk.Now() < o.Deadline {}`, whose reads are skipped in bulk rather
// than simulated one by one), Start = clk.Now(), max(Reps, 1) calls, End =
// clk.Now(). Each call runs the model its row of the operation table names
// (mpi.Op.Sim; models.go implements every model, most rows running their
// Go reference semantics, mpi.Op.Go, on this package's collectives), with
// the binding's semantics: Bcast broadcasts the root's o.Send into the
// other ranks' o.Recv; a ping-pong sends Count elements from o.Send of rank
// Root to rank Peer, which receives them into o.Recv and sends its own
// o.Send back; other ranks only take the two timestamps. The checkers
// compare the result of every row with its expected result
// (mpi.Op.Result), here and under mpirun. clk should be the rank's clock
// or one derived from it, such as a synchronized global clock.
//
// # Clocks and ground truth
//
// Rank r's clock reads local(t) = t + offset + drift·t + wander(t) + slew(t)
// at true time t, quantized to its resolution (ClockParams). slew(t) models
// a time daemon slewing the clock: steps of its rate at given times
// (ClockParams.Slews; ClockDist.Slews draws them, up to ±500 ppm). The
// parameters are drawn from Config.Clock with Config.Seed or given per rank;
// World.Params returns them, the drawn slews included. The World's
// ClockAt (ticks), ClockSecondsAt (seconds), TrueOffset, TrueDriftPPM and
// TrueTime return the ground
// truth at any true time, so a test can measure the real error of a clock
// synchronization algorithm: map a timestamp of rank r through the
// algorithm's global clock and compare it with ClockSecondsAt(0, TrueTime(r, ts)).
//
// With Config.Log set, World.Log returns every simulated message (sender,
// receiver, tag, size, send and arrival times), as httptest's
// ResponseRecorder records a response; World.Messages counts them always.
//
// # Determinism
//
// The same Config (Seed included) and the same rank function give
// bit-identical results — timestamps, true times, message contents —
// whatever GOMAXPROCS and goroutine scheduling. Messages are matched by
// (communicator, source, tag) in send order (there is no wildcard receive),
// so every rank's execution depends only on what it receives, and every
// random draw is a fixed function of the seed: the latency of the k-th
// message on the link s→d is drawn from a stream indexed by (s, d, k).
// Request.Test keeps this property: when the matching send has not been
// issued yet, Test waits in real time until it is, or until every rank is
// blocked with at least one of them in Test; in the latter case no message
// can be sent before a polling rank proceeds, so those Tests return false.
// (A program that polls forever for a message nobody can send is reported
// as deadlocked after 10000 such rounds without any message.) Rank functions must
// themselves be deterministic: no shared state between ranks other than
// through the communicator, no real time.
//
// # Failures
//
// Invalid ranks, tags, buffers, datatypes, reductions and mismatched message
// sizes are reported as *mpi.Error. When every rank still running is
// blocked waiting for a message, Run returns a *DeadlockError naming each
// blocked rank, the operation and the peer and tag it waits for, instead of
// hanging; panics of rank functions are returned with their stacks.
//
// # Performance
//
// A rank is a goroutine; a message is a copy into the receiver's mailbox (or
// directly into a posted receive buffer) under the receiver's mutex, and a
// blocked receiver is woken through its own one-slot channel. There is no
// global lock or scheduler.
package mpitest
