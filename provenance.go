package reprobench

import (
	"github.com/reprobench/reprobench/provenance"
)

// bindingSamples says when Run samples each rank's CPU
// (provenance.Record.BindingSamples).
const bindingSamples = "at the start, before and after each batch of measured observations, and at the end"

// cpuReader, when set, gives the CPU reader of each rank's binding
// (provenance.Options.CPU) in Run and CollectMetadata: the tests' fake
// readings. nil: the binding's own.
var cpuReader func(rank int) func() (int, string)

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
