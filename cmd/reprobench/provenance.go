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
	names := make([]string, len(sides))
	recs := make([][]*provenance.Record, len(sides))
	seen := map[string]bool{}
	for i, s := range sides {
		names[i] = s.Name
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
	return provenance.Differences(names, recs)
}
