package rawdata_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// A program that times its own code writes analyzable raw data in a few
// lines: declare the experiments, write rows, close.
func Example() {
	dir, _ := os.MkdirTemp("", "rawdata")
	defer os.RemoveAll(dir)
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "demo", Mpirun: 0,
		Labels:      map[string]string{"impl": "mine"},
		Experiments: []rawdata.Experiment{{Exp: 0, Factors: factor.Values{}.WithText(factor.ProcSync, "window").With(factor.Window, int64(130*time.Microsecond)).WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "hca3")}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, rt := range []float64{2.9e-7, 3.1e-7} {
		_ = w.Row(&rawdata.Row{Exp: 0, Call: "halo_exchange", MsizeBytes: 64, Count: 8, Datatype: "float64", Np: 2, Rep: i, RuntimeS: rt})
	}
	if err := w.Close(&rawdata.Metadata{RunID: "demo", Np: 2, ErrorCodes: rawdata.ErrorCodes}); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(w.Names().CSV)
	fmt.Print(string(b))
	fmt.Println(filepath.Base(w.Names().JSON))
	// Output:
	// run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,window_s,runtime_type,cache,clocksync,skew,noise_guard,bw_window,rma_sync,impl
	// demo,0,0,halo_exchange,64,8,float64,2,0,2.9e-07,0,window,0.00013,local,warm,hca3,,off,,,mine
	// demo,0,0,halo_exchange,64,8,float64,2,1,3.1e-07,0,window,0.00013,local,warm,hca3,,off,,,mine
	// demo-mpirun000.json
}

func ExampleCheckRunID() {
	for _, id := range []string{"campaign-1", "a,b", "../escaped"} {
		fmt.Println(rawdata.CheckRunID(id))
	}
	// Output:
	// <nil>
	// rawdata: run id "a,b": only letters, digits, '_', '-' and '.' are allowed
	// rawdata: run id "../escaped": must not be empty or start with '.' or '-'
}
