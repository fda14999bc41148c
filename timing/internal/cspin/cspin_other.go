//go:build !(cgo && linux)

package cspin

// Available reports whether Spin works in this build: not without cgo on
// Linux.
const Available = false

// Spin is not available in this build; it panics.
func Spin(start, end, threshold int64, starts, lens []int64) (n, dropped int, reads, first, last int64) {
	panic("cspin: the C spin loop needs cgo on Linux")
}
