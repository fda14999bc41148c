// Package memprof attributes heap allocations to the function that made
// them, from the runtime's memory profile: the measure of the tests that
// bound rank 0's memory at scale (the engine's rows, the region
// recorder's Close).
//
// The profile samples allocations (runtime.MemProfileRate; a test sets it
// to 1 to count every byte), and it is complete only after a garbage
// collection, which AllocatedUnder runs.
package memprof
