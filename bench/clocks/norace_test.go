//go:build !race

package clocks_test

const raceEnabled = false
