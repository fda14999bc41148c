package reprobench

import "github.com/reprobench/reprobench/rawdata"

// The unexported parts of the experiment loop that the external tests
// drive directly: the loop itself with its sink, and its helpers.
type (
	Engine  = engine
	Sink    = rowSink
	Row     = rawdata.Row
	RankRow = rawdata.RankRow
	Summary = rawdata.Summary
)

var (
	Declare        = declare
	Rank0Bytes     = rank0Bytes
	DefaultRuntime = defaultRuntime
	ExperimentSeed = experimentSeed
	CheckClockSync = checkClockSync
)

const (
	SyncRecordRanks      = syncRecordRanks
	DefaultPrehistoryMax = defaultPrehistoryMax
)
