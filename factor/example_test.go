package factor_test

import (
	"fmt"
	"strings"

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

// The table's rows: each column's flag, how often its level may change
// (Scope) and how its levels are written (Kind), in the table's order.
func ExampleTable() {
	kinds := map[factor.Kind]string{factor.KindText: "text", factor.KindSeconds: "seconds",
		factor.KindInt: "integer", factor.KindEnum: "enum", factor.KindBool: "off/on"}
	for _, f := range factor.Table() {
		line := fmt.Sprintf("%-12s -%-11s %-10s %-7s %s", f.Name, f.Flag, f.Scope, kinds[f.Kind], f.Unit)
		fmt.Println(strings.TrimRight(line, " "))
	}
	ns, err := factor.ParseSeconds("0.0001") // a KindSeconds cell
	fmt.Println(ns, "ns", err)
	fmt.Println(factor.PerRow, factor.PerRow == factor.PerExperiment) // a covariate recorded per row: no row of the table yet
	// Output:
	// procsync     -proc-sync   experiment text
	// window_s     -window      experiment seconds s
	// runtime_type -runtime     experiment text
	// cache        -cache       experiment text
	// clocksync    -clock-sync  experiment text
	// skew         -skew        experiment integer
	// noise_guard  -noise-guard experiment off/on
	// bw_window    -bw-window   experiment integer messages
	// rma_sync     -rma-sync    experiment enum
	// in_place     -in-place    experiment off/on
	// root_shift   -root-shift  experiment off/on
	// buf_offset   -buf-offset  experiment integer bytes
	// algorithm    -algorithm   mpirun     text
	// 100000 ns <nil>
	// row false
}
