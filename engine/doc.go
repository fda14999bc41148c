// Package engine runs experiments. The model: an Experiment names one
// call (or a user's function) and its factors; the engine runs its warm-up
// and then its observations, each one timed call started under the
// experiment's process synchronization (package window) and read on the
// global clock (package clocksync), and streams one raw row per
// observation to a Sink on rank 0 (package rawdata writes the files). It
// never aggregates: summaries are package analysis's job.
package engine
