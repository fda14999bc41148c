package timing

// Names the external tests and examples use, unexported in the package.

var Calibrate = calibrate
var MonotonicRaw = monotonicRaw

type Reference = calibrationRef
