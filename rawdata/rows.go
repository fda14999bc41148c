package rawdata

import (
	"strconv"
	"strings"
	"time"
)

// Row is one observation: one line of the raw file without its run_id,
// mpirun and factor columns, which the Writer adds.
type Row struct {
	Exp        int
	Call       string // MPI_Allreduce, pingpong, … (mpi.Call.String)
	MsizeBytes int
	Count      int
	Datatype   string // one of Datatypes
	Np         int
	Rep        int
	RuntimeS   float64
	ErrorCode  int
}

// RankRow is one rank's timestamps of one observation, seconds: local on
// the rank's clock since its epoch, global on the global clock.
type RankRow struct {
	Exp          int
	Call         string
	MsizeBytes   int
	Np           int
	Rep          int
	Rank         int
	LocalStartS  float64
	LocalEndS    float64
	GlobalStartS float64
	GlobalEndS   float64
	ErrorCode    int
}

// Factors are the levels of an experiment's method factors, written in the
// FactorColumns of each of its rows.
type Factors struct {
	ProcSync    string        // procsync
	Window      time.Duration // window_s; 0 for methods without a window
	RuntimeType string        // runtime_type
	Cache       string        // cache
	ClockSync   string        // clocksync spec, or "none"
	// p2p:
	BWWindow int    // bw_window: messages per window of bw, bibw, mbw_mr; 0 (an empty cell) for other calls
	RMASync  string // rma_sync: fence, lock or flush for one-sided calls; empty for others
}

// Values returns the FactorColumns' values of f, formatted as written.
func (f Factors) Values() []string {
	bw := "" // p2p: empty cells for the calls a factor does not apply to, which analysis leaves out of group keys
	if f.BWWindow > 0 {
		bw = strconv.Itoa(f.BWWindow)
	}
	return []string{f.ProcSync, FormatSeconds(f.Window), f.RuntimeType, f.Cache, strings.ReplaceAll(f.ClockSync, ",", ";"),
		bw, f.RMASync}
}

// FormatSeconds formats d in seconds, the shortest decimal that parses
// back to the same float64: 130µs is "0.00013".
func FormatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
}

// Experiment declares one experiment to a Writer: the factor levels and
// labels its rows carry.
type Experiment struct {
	Exp     int
	Factors Factors
	// Labels of this experiment (e.g. a design file's label columns); they
	// override the Writer's run-wide labels of the same key.
	Labels map[string]string
}

// Adaptation is one change of the window by an adaptive process
// synchronization policy, as recorded in the sidecar (window.Adaptation).
type Adaptation struct {
	AtObservation int     `json:"at_observation"`  // index of the first observation of the batch that triggered it (attempts counted)
	InvalidCount  int     `json:"invalid_count"`   // invalid observations of that batch
	ExpiredCount  int     `json:"expired_count"`   // of which expired (what AdaptOnExpired counts)
	BatchSize     int     `json:"batch_size"`      // observations in that batch
	MeanDurationS float64 `json:"mean_duration_s"` // mean over the batch of the max-over-ranks duration
	OldWindowS    float64 `json:"old_window_s"`
	NewWindowS    float64 `json:"new_window_s"`
	RepeatedBatch bool    `json:"repeated_batch"` // NBCBench: the batch was discarded and repeated
	WarmUp        bool    `json:"warm_up"`        // happened during the warm-up
}

// Summary describes how one experiment went (engine.Summary), for the
// sidecar: it counts, it does not summarize runtimes.
type Summary struct {
	Exp           int          `json:"exp"`
	Call          string       `json:"call"`
	MsizeBytes    int          `json:"msize_bytes"`
	Method        string       `json:"proc_sync"`
	RuntimeType   string       `json:"runtime_type"`
	Cache         string       `json:"cache"`
	BWWindow      int          `json:"bw_window,omitempty"` // p2p: messages per window of bw, bibw, mbw_mr
	RMASync       string       `json:"rma_sync,omitempty"`  // p2p: synchronization of one-sided calls
	WarmupCount   int          `json:"warmup_count"`
	Rows          int          `json:"rows"`
	Invalid       int          `json:"invalid"`
	InitialWindow float64      `json:"initial_window_s,omitempty"`
	FinalWindowS  float64      `json:"final_window_s,omitempty"`
	MaxLateS      float64      `json:"max_late_s"` // over ranks and rows, 0 without deadlines
	Adaptations   []Adaptation `json:"adaptations,omitempty"`
	DurationS     float64      `json:"duration_s"` // wall time of the experiment on rank 0
	// AllocsPerObs is the number of heap allocations (whole process) during
	// the measured observations on rank 0, divided by their number: the
	// observation loop is meant not to allocate, so this should be 0.
	AllocsPerObs float64   `json:"heap_allocs_per_observation"`
	StartedAt    time.Time `json:"started_at"`
}
