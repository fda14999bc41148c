package analysis_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// The same observations read twice (a file listed twice, or a copy left
// aside by a resumed campaign) are refused with both places named;
// KeepDuplicates counts them instead.
func ExampleDuplicateError() {
	file := "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n" +
		"c1,0,0,MPI_Bcast,8,8,MPI_BYTE,2,0,1.2e-06,0\n" +
		"c1,0,0,MPI_Bcast,8,8,MPI_BYTE,2,1,1.1e-06,0\n"
	d := analysis.NewDataset()
	_ = d.Read(strings.NewReader(file), "c1-mpirun000.csv")
	err := d.Read(strings.NewReader(file), "copy/c1-mpirun000.csv")
	var de *analysis.DuplicateError
	if errors.As(err, &de) {
		fmt.Printf("rep %d at %s:%d was read at %s:%d\n", de.Rep, de.File, de.Line, de.FirstFile, de.FirstLine)
	}

	d = analysis.NewDataset()
	d.KeepDuplicates = true
	_ = d.Read(strings.NewReader(file), "c1-mpirun000.csv")
	_ = d.Read(strings.NewReader(file), "copy/c1-mpirun000.csv")
	fmt.Println(len(d.Groups[0].Runtimes), "observations,", d.Duplicates, "duplicates")
	// Output:
	// rep 0 at copy/c1-mpirun000.csv:2 was read at c1-mpirun000.csv:2
	// 4 observations, 2 duplicates
}

// A file that does not end in a newline was cut off while being written:
// its last line is refused rather than read as a (wrong) value.
func ExampleErrUnterminated() {
	cut := "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n" +
		"c1,0,0,MPI_Bcast,8,8,MPI_BYTE,2,0,1.2e-06,0\n" +
		"c1,0,0,MPI_Bcast,8,8,MPI_BYTE,2,1,1.1e-0"
	_, err := analysis.ReadRaw(strings.NewReader(cut), "t.csv")
	fmt.Println(errors.Is(err, analysis.ErrUnterminated))
	fmt.Println(err)
	// Output:
	// true
	// malformed raw data: t.csv:3: last line has no line end: the file is truncated (still being written, or cut off)
}

// Run times are plain decimals; Go's hexadecimal floats and digit
// separators, which strconv.ParseFloat accepts, are corrupt data here.
func ExampleParseDecimal() {
	for _, s := range []string{"1.2e-06", "NaN", "0x1p-20", "1_0"} {
		v, err := analysis.ParseDecimal(s)
		fmt.Println(v, err)
	}
	// Output:
	// 1.2e-06 <nil>
	// NaN <nil>
	// 0 "0x1p-20" is not a decimal number
	// 0 "1_0" is not a decimal number
}
