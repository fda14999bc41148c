package reprobench

import (
	"fmt"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
)

// checkFunc validates an experiment of a user's function (Experiment.Func):
// a name the raw data can hold that is no built-in call's, a datatype and
// a message size that is a multiple of it, nrep ≥ 1 (or a valid stop rule), the local or global
// runtime type, and none of the fields that apply to built-in calls only
// (which would otherwise be ignored silently).
func (ex *Experiment) checkFunc() error {
	if err := rawdata.CheckCall(ex.Name); err != nil {
		return fmt.Errorf("function's name: %w", err)
	}
	if c, err := mpi.ParseCall(ex.Name); err == nil {
		return fmt.Errorf("function's name %q is the built-in call %v: its rows would fall into that call's groups; choose another name", ex.Name, c)
	}
	if !ex.Type.Valid() {
		return fmt.Errorf("invalid datatype %v", ex.Type)
	}
	if ex.MsizeBytes < 0 || ex.MsizeBytes%ex.Type.Size() != 0 {
		return fmt.Errorf("message size %d bytes is not a multiple of %v's %d bytes", ex.MsizeBytes, ex.Type, ex.Type.Size())
	}
	if err := ex.checkNrep(); err != nil {
		return err
	}
	if ex.Runtime != completion.Local && ex.Runtime != completion.Global {
		return fmt.Errorf("runtime type %v: a function is timed once per observation, local or global", ex.Runtime)
	}
	// The values DefaultExperiment sets (or zero) are accepted: they do
	// not apply to a function, and a function's experiment starts from it.
	if ex.Cache != cache.Warm || (ex.LoopReps != 0 && ex.LoopReps != DefaultLoopReps) ||
		(ex.CacheSlots != 0 && ex.CacheSlots != DefaultCacheSlots) || ex.FlushBytes != 0 || ex.Overlap != nil {
		return fmt.Errorf("function %s: cache modes, loop repetitions, overlap and call parameters apply to built-in calls only", ex.Name)
	}
	for _, id := range factor.CallParams() {
		if v, ok := ex.Params.Get(id); ok && v != id.Row().Default {
			return fmt.Errorf("function %s: %s applies to built-in calls only", ex.Name, id)
		}
	}
	return ex.Sync.Check()
}
