// Package cspin is the spin loop of timing.MeasureNoise in C. While a cgo
// call runs, the Go runtime leaves its thread alone, so the loop sees only
// the machine's detours. It is separate from timing because a package
// using cgo cannot also hold Go assembly (timing's TSC reads).
package cspin
