// Package completionref holds the reference definitions of the runtime
// types (Hunold & Carpen-Amarie 2016, §4.6) on every rank's values in the
// raw data's float seconds: the ground truth that the tests of the window
// loop (package window) and of the engine's reduced completion check
// against. It is for tests; the library computes the same values in
// ticks.
package completionref
