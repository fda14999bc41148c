package reprobench

import (
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/provenance"
)

// BindingSamples says when Run samples each rank's CPU
// (provenance.Record.BindingSamples).
const BindingSamples = "at the start, before and after each experiment's measured observations, and at the end"

// sampleBinding returns read with a sample of the rank's CPU before each
// reading; read nil stays nil (nothing to hook: the binding is then
// sampled at the start and the end only).
func sampleBinding(b *provenance.Binding, read func() (cpuload.Sample, error)) func() (cpuload.Sample, error) {
	if read == nil {
		return nil
	}
	return func() (cpuload.Sample, error) {
		b.Sample()
		return read()
	}
}

// provenanceNotes passes rec's notes that are not in seen to note, each
// prefixed "NOTE: binding: ", and returns seen with them added.
func provenanceNotes(rec *provenance.Record, seen map[string]bool, note func(string)) map[string]bool {
	if seen == nil {
		seen = map[string]bool{}
	}
	for _, n := range rec.Notes() {
		if !seen[n] {
			seen[n] = true
			note("NOTE: binding: " + n)
		}
	}
	return seen
}
