package region

import (
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// fillProvenance records rec in meta (rank 0, at write) and fills what
// the caller's Output.Meta left empty from it, so that a recording's
// sidecar carries what a run's does without user code: the MPI library,
// the processor names, the environment of rank 0's host and the
// provenance.
func fillProvenance(meta *rawdata.Metadata, rec *provenance.Record) {
	if rec == nil {
		return
	}
	meta.Provenance = rawdata.MarshalRecord(rec)
	if meta.MPILibrary == "" && !provenance.IsUnavailable(rec.Library) {
		meta.MPILibrary = rec.Library
	}
	if len(meta.ProcessorNames) == 0 {
		for _, k := range rec.Ranks {
			meta.ProcessorNames = append(meta.ProcessorNames, k.Node)
		}
	}
	if len(meta.Environment) == 0 {
		env := design.CollectEnvironment()
		meta.Environment = rawdata.MarshalRecord(&env)
	}
	if meta.ErrorCodes == nil {
		meta.ErrorCodes = rawdata.ErrorCodes
	}
}
