package rawdata_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/reprobench/reprobench/rawdata"
)

// A label key names a column of its own: it may not shadow one of the
// format's columns (a covariate such as prehistory_msgs included).
func ExampleCheckLabelKey() {
	for _, k := range []string{"impl", rawdata.CovariatePrehistory, "2nd"} {
		fmt.Println(rawdata.CheckLabelKey(k))
	}
	// Output:
	// <nil>
	// rawdata: label key "prehistory_msgs" collides with a column of the raw data
	// rawdata: label key "2nd": want letters, digits and _, starting with a letter
}

// A reader accepts its own format and older ones, and refuses a newer
// major version with ErrFormatVersion.
func ExampleCheckFormatVersion() {
	fmt.Println(rawdata.CheckFormatVersion(rawdata.FormatVersion) == nil)
	for _, v := range []string{"1.0", ""} { // "": written before versioning
		fmt.Printf("%q %v\n", v, rawdata.CheckFormatVersion(v))
	}
	err := rawdata.CheckFormatVersion("9.0")
	fmt.Printf("%q %v\n", "9.0", errors.Is(err, rawdata.ErrFormatVersion))
	// Output:
	// true
	// "1.0" <nil>
	// "" <nil>
	// "9.0" true
}

// Create never overwrites results: a second run with the same run id and
// mpirun in the same directory is refused with ErrExists. The datatype
// column takes the names of Datatypes.
func ExampleCreate() {
	dir, _ := os.MkdirTemp("", "rawdata")
	defer os.RemoveAll(dir)
	opt := rawdata.Options{Dir: dir, RunID: "once", Experiments: []rawdata.Experiment{{Exp: 0}}}
	w, err := rawdata.Create(opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Row(&rawdata.Row{Call: "MPI_Bcast", Datatype: rawdata.Datatypes[0], Np: 1, RuntimeS: 1e-6}))
	if err := w.Close(&rawdata.Metadata{RunID: "once", Np: 1, ErrorCodes: rawdata.ErrorCodes}); err != nil {
		fmt.Println(err)
		return
	}
	_, err = rawdata.Create(opt)
	fmt.Println(errors.Is(err, rawdata.ErrExists))
	// Output:
	// <nil>
	// true
}
