// Package cpuload measures the CPU time that processes other than a run's
// own ranks took while the ranks measured, from Linux's /proc, so that an
// analysis can say when the machine was busy (rawdata.CPULoad gives the
// formula and the units).
//
// Each rank reads a Sample just before an experiment's first measured
// observation and just after its last, outside the timed part: the busy
// time of each CPU it may run on (/proc/stat), its process's own user and
// system time (/proc/self/stat), its CPU affinity (/proc/self/status,
// Cpus_allowed_list), the kernel's boot id and clock-tick rate
// (/proc/sys/kernel/random/boot_id, /proc/self/auxv's AT_CLKTCK). Delta
// turns two samples into a Rank, a fixed vector of integers that one
// MPI_Allgather collects, and Combine turns the ranks' vectors into a
// rawdata.CPULoad per kernel and in all.
//
// A Sample reads five small files, some 50–100 µs; a run reads two per
// experiment and rank. The simulated world's ranks, goroutines of one
// process, read one process's own time and count it once.
package cpuload
