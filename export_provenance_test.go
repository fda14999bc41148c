package reprobench

// SetCPUReader makes Run's bindings read each rank's CPU with f(rank)
// (cpuReader) until the returned function restores the default.
func SetCPUReader(f func(rank int) func() (int, string)) (restore func()) {
	old := cpuReader
	cpuReader = f
	return func() { cpuReader = old }
}

// BindingSamplesForTest is the text Run records for when it samples the
// ranks' CPUs (bindingSamples).
const BindingSamplesForTest = bindingSamples
