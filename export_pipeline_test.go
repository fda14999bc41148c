package reprobench

// The unexported parts of the pipeline that its tests exercise directly.
var (
	NodeIndex        = nodeIndex
	NewNoiseGuard    = newNoiseGuard
	GuardsNoise      = guardsNoise
	ResolveClockSync = resolveClockSync
	ClockAccuracy    = clockAccuracy
	NewResync        = newResync
	ProcessorNames   = processorNames
)

type ResyncOptions = resyncOptions

var GatherNames = gatherNames
