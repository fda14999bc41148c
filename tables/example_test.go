package tables_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/tables"
)

// The table "reprobench analyze --format csv" prints, from a library
// program: raw rows in, one row per group out.
func ExampleWriteSummaryCSV() {
	raw := `run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode
r,0,0,MPI_Bcast,8,1,float64,2,0,1.0e-06,0
r,0,0,MPI_Bcast,8,1,float64,2,1,1.2e-06,0
r,1,0,MPI_Bcast,8,1,float64,2,0,1.1e-06,0
r,1,0,MPI_Bcast,8,1,float64,2,1,1.3e-06,0
`
	d, err := analysis.ReadRaw(strings.NewReader(raw), "example.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	if err := tables.WriteSummaryCSV(&b, analysis.Analyze(d, analysis.DefaultOptions)); err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(b.String(), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	for i, col := range head[:12] {
		fmt.Printf("%s=%s ", col, row[i])
	}
	fmt.Println()
	// Output:
	// call=MPI_Bcast msize_bytes=8 np=2 datatype=float64 labels= n=4 n_mpiruns=2 invalid=0 wrong_results=0 bad=0 outliers_removed=0 median_s=1.15e-06
}

// The text table with analyze's default columns.
func ExampleWriteSummaryText() {
	raw := `run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode
r,0,0,MPI_Bcast,8,1,float64,2,0,1.0e-06,0
r,0,0,MPI_Bcast,8,1,float64,2,1,1.2e-06,0
`
	d, _ := analysis.ReadRaw(strings.NewReader(raw), "example.csv")
	sums := analysis.Analyze(d, analysis.DefaultOptions)
	cols, err := tables.SelectColumns("n,median", false, sums)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := tables.WriteSummaryText(os.Stdout, sums, nil, analysis.DefaultOptions, cols); err != nil {
		fmt.Println(err)
	}
	// Output:
	// median: the median of the per-mpirun medians (1 mpirun: of its observations), CI from them;
	// pooled: the median of all observations pooled (secondary). Columns: reprobench help analyze
	// group                           n  median
	// MPI_Bcast/msize=8/np=2/float64  2  1.10µs
	// removed before the medians: 0 outliers, 0 invalid, 0 bad (per group: --wide; meaning: help analyze)
	//
	// warning: MPI_Bcast/msize=8/np=2/float64: need at least 6 observations for a 95% confidence interval of the 0.5
	//          quantile
	// warning: MPI_Bcast/msize=8/np=2/float64: single mpirun: results may not be reproducible across mpiruns (Hunold
	//          et al. 2014, §3)
}
