package timing

// DefaultClockName is the name (Clock.Name) of the clock reprobench measures
// with unless told otherwise: "monotonic_raw", CLOCK_MONOTONIC_RAW. It is
// the default of "reprobench run --clock", and NewDefault makes it.
//
// It is CLOCK_MONOTONIC_RAW rather than CLOCK_MONOTONIC because no time
// daemon slews it: a slew steps CLOCK_MONOTONIC's rate by up to 500 ppm,
// and the clock models that every clock synchronization learns, and the
// bounds they state, assume one rate per clock. On the timed path (C, two
// reads per observation) both clocks are read through the vDSO at the same
// cost; from Go, CLOCK_MONOTONIC_RAW costs one cgo call more
// (docs/clock-sync.md, "The default clock", has the numbers).
const DefaultClockName = "monotonic_raw"

// NewDefault returns a new clock of the kind DefaultClockName names, whose
// epoch is now.
func NewDefault() Clock { return NewMonotonicRaw() }
