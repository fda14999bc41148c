package clocksync

// BootID is bootID, for the external tests.
var BootID = bootID
