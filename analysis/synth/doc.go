// Package synth writes synthetic raw observation files in the engine's CSV
// format (see analysis.RawColumns), seeded and deterministic, for tests and
// benchmarks of package analysis.
package synth
