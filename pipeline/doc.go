// Package pipeline is the library's path from a request to raw files. The
// model: a request (a design file's rows, or a factorial of calls, sizes
// and methods with a seed) becomes the engine's experiments in the
// design's order; Run checks them on every rank, records the metadata,
// synchronizes the clocks, runs the engine and closes the raw files of
// package rawdata. "reprobench run" is this package behind flags.
package pipeline
