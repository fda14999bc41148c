package design_test

import (
	"fmt"

	"github.com/reprobench/reprobench/design"
)

// CountSizes tells how many sizes a spec yields without drawing them, so
// that a design too large for design.MaxRows is refused at once.
func ExampleCountSizes() {
	for _, spec := range []string{"8,64,1K", "pow2:1..1M", "logu:8..1G:1000000", "1K..4K"} {
		n, err := design.CountSizes(spec)
		fmt.Println(n, err)
	}
	p := design.Plan{Mpiruns: 10, Factors: design.Factors{MsizesBytes: make([]int, 200000)}}
	rows, ok := p.Rows()
	fmt.Println(rows, ok)
	// Output:
	// 3 <nil>
	// 21 <nil>
	// 1000000 <nil>
	// 0 message sizes "1K..4K": a range needs its kind: pow2:1K..4K or logu:1K..4K:COUNT
	// 2000000 false
}
