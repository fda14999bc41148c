package rawdata

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Metadata is the JSON sidecar of one mpirun.
type Metadata struct {
	// FormatVersion is the raw-data format of this sidecar and the CSV
	// files it names (FormatVersion; set by Writer.Close and Abort).
	FormatVersion string            `json:"format_version"`
	RunID         string            `json:"run_id"`
	Mpirun        int               `json:"mpirun"`
	Seed          uint64            `json:"seed"`           // seed of the experiment order, always recorded
	SeedGenerated bool              `json:"seed_generated"` // the seed was drawn, not given
	Np            int               `json:"np"`
	Flags         map[string]string `json:"flags"` // every flag of the run with the value that ran
	Args          []string          `json:"args"`
	Labels        map[string]string `json:"labels"`
	Design        string            `json:"design_file,omitempty"`
	StartUTC      time.Time         `json:"start_utc"`
	EndUTC        time.Time         `json:"end_utc"`
	DurationS     float64           `json:"duration_s"`
	// PerMpirun are the levels of the per-mpirun factors the launcher
	// set (the algorithm), by column, as in every row (format 1.6);
	// absent when none was set.
	PerMpirun map[string]string `json:"per_mpirun,omitempty"`
	// Clock is the clock's timing.Measurement on rank 0.
	Clock json.RawMessage `json:"clock,omitempty"`
	// TSC holds, for TSC clocks, the frequency and CPU facts.
	TSC           json.RawMessage `json:"tsc,omitempty"`
	ClockSyncSpec string          `json:"clock_sync"`
	ClockSyncs    []ClockSync     `json:"clock_syncs,omitempty"`
	// ProcSyncFallbacks lists the experiments that did not run with their
	// declared process synchronization because the clock synchronization
	// before them stated no error bound (a windowed method needs one), and
	// what ran instead; their rows carry the declared factors.
	ProcSyncFallbacks []ProcSyncFallback `json:"proc_sync_fallbacks,omitempty"`
	MPILibrary        string             `json:"mpi_library_version"`
	// MPIThread is the thread level the binding uses, by its short name
	// (single, funneled, serialized, multiple: mpi.ThreadLevel.String).
	MPIThread string `json:"mpi_thread_level"`
	// MPIThreadRequested and MPIThreadProvided are the thread levels
	// requested from MPI_Init_thread and granted by it, by their MPI names
	// (MPI_THREAD_SINGLE, …). Writer.Close takes either spelling in any
	// of the three fields and writes each field's own.
	MPIThreadRequested string            `json:"mpi_thread_requested"`
	MPIThreadProvided  string            `json:"mpi_thread_provided"`
	ProcessorNames     []string          `json:"processor_names"`
	ErrorCodes         map[string]string `json:"errorcodes"` // ErrorCodes
	Files              map[string]string `json:"files"`      // set by Writer.Close: raw, per_rank, metadata
	Experiments        []Summary         `json:"experiments"`
	// Environment is design.Environment of rank 0's host.
	Environment json.RawMessage `json:"environment,omitempty"`
	// Error is the error that ended an aborted mpirun (set by Writer.Abort).
	Error string `json:"error,omitempty"`
	// Regions is the region recorder's record of its own configuration,
	// overhead and overflow (region.Record), for runs of package region.
	Regions json.RawMessage `json:"regions,omitempty"`

	// ClockAccuracy is the accuracy target of the clock syncs that learn to
	// one (clocksync.Accuracy's text, e.g. "1µs@1s"; "none": the published
	// fixed counts), ClockAccuracySource where it came from: the flag, or
	// the default derived from the experiments and how.
	ClockAccuracy       string `json:"clock_accuracy,omitempty"`
	ClockAccuracySource string `json:"clock_accuracy_source,omitempty"`

	// Traffic is what the run's set-up sent between ranks outside any
	// experiment (the experiments' own is in each Summary.Traffic).
	Traffic Traffic `json:"traffic,omitempty"`
	// WindowBaseline is the machine's own late share, measured by the
	// window loop with nothing to time at the start of the mpirun (nil when
	// no experiment used a windowed method).
	WindowBaseline *WindowBaseline `json:"window_baseline,omitempty"`
	// CPULoad is the CPU time other processes took during the mpirun's
	// measurements: from just before its first experiment's measured
	// observations to just after its last experiment's, one pair of
	// readings per rank (format 1.5; in 1.4, the sum of the experiments'
	// Summary.CPULoad); nil when it was not read or an experiment
	// failed. Added in format 1.4.
	CPULoad *CPULoad `json:"cpu_load,omitempty"`

	// Simulation, when present, says the data were simulated (package
	// mpitest, "reprobench run --sim"), not measured: it holds the
	// simulated machine's model. "reprobench compare" refuses to compare
	// simulated with measured data unless asked.
	Simulation json.RawMessage `json:"simulation,omitempty"`

	// Provenance is where and how the mpirun ran (provenance.Record: the
	// MPI library and its configuration, the launcher, each rank's
	// binding, the clock's discipline and each node's CPU facts). Added in
	// format 1.5.
	Provenance json.RawMessage `json:"provenance,omitempty"`
}

// WindowBaseline is what the window loop loses with nothing to time: n
// observations on a fixed window grid whose starts every rank busy-waits
// for, the start and end timestamps with no call between them
// (mpi.Observation.NoCall), each flagged as an experiment's observations
// are (late start or expired window on some rank, reduced across ranks).
// Its invalid share is the share of windowed observations this machine
// loses whatever the operation: noise, not the method
// (window.MeasureBaseline).
type WindowBaseline struct {
	Observations   int     `json:"observations"`
	Invalid        int     `json:"invalid"` // late or expired on some rank
	Late           int     `json:"late"`    // of which late
	WindowS        float64 `json:"window_s"`
	LateToleranceS float64 `json:"late_tolerance_s"`
	Batches        int     `json:"batches"`    // one Allreduce of the start and one of the flags each
	DurationS      float64 `json:"duration_s"` // wall time on rank 0, its reductions included
	// BeforeExp is the experiment it ran before (after that experiment's
	// clock synchronization).
	BeforeExp int `json:"before_exp"`
}

// Simulated reports whether the sidecar describes simulated data.
func (m *Metadata) Simulated() bool { return len(m.Simulation) > 0 }

// ProcSyncFallback is one experiment that fell back from a windowed
// process synchronization: the declared method and completion time, the
// ones that ran, and why.
type ProcSyncFallback struct {
	Exp             int    `json:"exp"`
	Declared        string `json:"declared_proc_sync"`
	DeclaredRuntime string `json:"declared_runtime_type"`
	Ran             string `json:"proc_sync"`
	RanRuntime      string `json:"runtime_type"`
	Why             string `json:"why"`
}

// ClockSync is one clock synchronization: before which experiment, and its
// clocksync.Result.
type ClockSync struct {
	BeforeExp int             `json:"before_exp"`
	Result    json.RawMessage `json:"result"`
	// Reason says why the clocks were synchronized: "first
	// synchronization", the predicted bound at the experiment's expected
	// end against the target, a change of clock sync spec, or "before
	// every experiment (fixed counts)".
	Reason string `json:"reason,omitempty"`
}

// MarshalRecord encodes v for a json.RawMessage field of Metadata (nil for
// a nil v or on error).
func MarshalRecord(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// ReadMetadata reads a mpirun's JSON sidecar. Fields it does not know (a
// newer minor version's) are ignored; a sidecar of a newer major format
// version (CheckFormatVersion), or one that is not JSON of this shape, is
// an error naming the file.
func ReadMetadata(path string) (*Metadata, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("rawdata: %s: %w", path, err)
	}
	if err := CheckFormatVersion(m.FormatVersion); err != nil {
		return nil, fmt.Errorf("rawdata: %s: %w", path, err)
	}
	return &m, nil
}
