package factor_test

import (
	"fmt"

	"github.com/reprobench/reprobench/factor"
)

// A design row sets bw_window; the run sets nothing else, so every other
// call parameter is at its row's default when it is applied.
func ExampleValues() {
	f := factor.Lookup("bw_window")
	v, err := f.Parse("16")
	if err != nil {
		fmt.Println(err)
		return
	}
	row := factor.Of(factor.BWWindow, v)
	fmt.Println(row.Cell(factor.BWWindow), row.Level(factor.Skew))
	if _, err := f.Parse("0"); err != nil {
		fmt.Println("refused")
	}
	// Output:
	// 16 1
	// refused
}

// The raw file's factor columns come from the table, in its order.
func ExampleColumns() {
	fmt.Println(factor.Columns()[:3])
	// Output: [procsync window_s runtime_type]
}
