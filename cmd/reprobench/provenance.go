package main

import (
	"encoding/json"

	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// provenanceDifferences lists what the sides' provenance records say
// differed between them and across each side's mpiruns
// (provenance.Differences), reading each file's sidecar.
func provenanceDifferences(sides []rawdata.Side) []string {
	names, recs := provenanceRecords(sides)
	return provenance.Differences(names, recs)
}

// explainPermutations is the number of permutations of compare --explain.
const explainPermutations = 9999

// explainProvenance is compare --explain: the first two sides' facts
// ranked by how well they separate the sides' mpiruns
// (provenance.Explain), as lines.
func explainProvenance(sides []rawdata.Side, alpha float64, seed uint64) []string {
	_, recs := provenanceRecords(sides)
	if len(recs) < 2 {
		return []string{"explain: needs two sides"}
	}
	return provenance.Explain(recs[0], recs[1], alpha, seed, explainPermutations).Lines()
}

// provenanceRecords reads the provenance record of each side's files'
// sidecars (each sidecar once per side; sidecars without one are
// skipped).
func provenanceRecords(sides []rawdata.Side) ([]string, [][]*provenance.Record) {
	names := make([]string, len(sides))
	recs := make([][]*provenance.Record, len(sides))
	for i, s := range sides {
		names[i] = s.Name
		seen := map[string]bool{}
		for _, f := range s.Files {
			p, ok := rawdata.SidecarFor(f)
			if !ok || seen[p] {
				continue
			}
			seen[p] = true
			m, err := rawdata.ReadMetadata(p)
			if err != nil || len(m.Provenance) == 0 {
				continue
			}
			var r provenance.Record
			if json.Unmarshal(m.Provenance, &r) == nil {
				recs[i] = append(recs[i], &r)
			}
		}
	}
	return names, recs
}
