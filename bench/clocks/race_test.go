//go:build race

package clocks_test

// raceEnabled: the race detector instruments Go code, so Go reads cost more.
const raceEnabled = true
