// Package provenance is the one record of where and how a run ran: the MPI
// library and its version, the launcher and its command line, the start
// time, each rank's binding (its affinity mask at the start and at the end,
// the CPUs it was seen on and how often it moved), per node the ranks whose
// masks overlap, the clock's discipline (clock source, adjtimex state) and
// the node's CPU facts (frequency governor and limits, turbo, SMT,
// transparent huge pages). The factors are those of Hunold &
// Carpen-Amarie 2016 (Table VI, §3.4) that a process can see for itself.
//
// Collect gathers it, collectively and outside any timed part: each rank
// probes its own process and node once per process (local), and the ranks
// exchange their probes with symmetric collectives (an allreduce of the
// largest length and one allgather), so that every rank holds the same
// Record. A Binding follows a rank's CPU while it measures: Sample reads the
// CPU the calling thread is on (between batches, never inside a timed
// span), and Binding.Finish combines every rank's samples and end mask
// into the Record, collectively.
//
// What a source cannot give is recorded as "unavailable: " and the reason,
// never left empty (Unavailable). A simulated run (package mpitest) gets
// deterministic fake values that say so (Simulated).
//
// Notes lists what a person running the benchmark should read: ranks that
// must share a CPU (more ranks than CPUs in the union of their overlapping
// masks on one node) and ranks that moved between CPUs. An unbound rank
// alone is not a note.
package provenance
