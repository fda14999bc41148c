// Command fakerun stands in for "reprobench run" in the launcher's tests. It
// honours the same flags and file contract: rank 0 (OMPI_COMM_WORLD_RANK,
// PMI_RANK or PMIX_RANK; 0 without a launcher) writes
// DIR/RUNID-mpirunNNN.csv and then the .json sidecar, each first as
// NAME.partial, fsynced and renamed, and refuses to overwrite final files.
// Every rank sleeps --sleep in the middle of the run (with the .csv.partial
// open and half written), so tests can kill it there.
//
// Test controls: the flag --sleep D, and the environment variables
// FAKERUN_FAIL_MPIRUN=N (exit 3 after 80 lines on stderr in mpirun N) and
// FAKERUN_HANG_MPIRUN=N (sleep for an hour in mpirun N, before any output),
// and FAKERUN_HOLD_MPIRUN=N (rank 0 of mpirun N sleeps for an hour with its
// .csv.partial half written, after writing DIR/pids/mpirunNNN.held), which
// a resume may change, and FAKERUN_IGNORE_TERM=1 (ignore SIGTERM, so that
// only the launcher's SIGKILL after its grace ends it). Every process writes its pid to
// DIR/pids/mpirunNNN-rankR.pid.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakerun:", err)
		os.Exit(1)
	}
}

func rank() string {
	for _, v := range []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"} {
		if r := os.Getenv(v); r != "" {
			return r
		}
	}
	return "0"
}

func run(args []string) error {
	if len(args) == 0 || args[0] != "run" {
		return fmt.Errorf("want subcommand run, got %q", args)
	}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "")
	runID := fs.String("run-id", "", "")
	mpirun := fs.Int("mpirun", -1, "")
	seed := fs.Uint64("seed", 0, "")
	designFile := fs.String("design", "", "")
	sleep := fs.Duration("sleep", 0, "")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" || *runID == "" || *mpirun < 0 {
		return fmt.Errorf("need --out, --run-id and --mpirun")
	}
	if os.Getenv("FAKERUN_IGNORE_TERM") == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	r := rank()
	pids := filepath.Join(*out, "pids")
	os.MkdirAll(pids, 0o755)
	pidFile := filepath.Join(pids, fmt.Sprintf("mpirun%03d-rank%s.pid", *mpirun, r))
	os.WriteFile(pidFile+".tmp", fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644)
	os.Rename(pidFile+".tmp", pidFile)
	if os.Getenv("FAKERUN_FAIL_MPIRUN") == fmt.Sprint(*mpirun) {
		for i := 0; i < 80; i++ {
			fmt.Fprintf(os.Stderr, "fakerun: stderr line %d\n", i)
		}
		fmt.Fprintf(os.Stderr, "fakerun: failing mpirun %d on purpose\n", *mpirun)
		os.Exit(3)
	}
	if os.Getenv("FAKERUN_HANG_MPIRUN") == fmt.Sprint(*mpirun) {
		time.Sleep(time.Hour)
	}
	base := filepath.Join(*out, fmt.Sprintf("%s-mpirun%03d", *runID, *mpirun))
	if r != "0" {
		time.Sleep(*sleep)
		return nil
	}
	for _, ext := range []string{".csv", ".json"} {
		if _, err := os.Lstat(base + ext); err == nil {
			return fmt.Errorf("%s exists; not overwriting it", base+ext)
		}
	}
	f, err := os.OpenFile(base+".csv.partial", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "run_id,mpirun,exp,runtime_s\n%s,%d,0,1e-6\n", *runID, *mpirun)
	if os.Getenv("FAKERUN_HOLD_MPIRUN") == fmt.Sprint(*mpirun) {
		held := filepath.Join(pids, fmt.Sprintf("mpirun%03d.held", *mpirun))
		os.WriteFile(held, nil, 0o644)
		time.Sleep(time.Hour)
	}
	time.Sleep(*sleep)
	fmt.Fprintf(f, "%s,%d,1,2e-6\n", *runID, *mpirun)
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(base+".csv.partial", base+".csv"); err != nil {
		return err
	}
	meta := fmt.Sprintf("{\"run_id\":%q,\"mpirun\":%d,\"seed\":%d,\"design\":%q,\"pid\":%d,\"args\":%q}\n",
		*runID, *mpirun, *seed, *designFile, os.Getpid(), fs.Args())
	if err := os.WriteFile(base+".json.partial", []byte(meta), 0o644); err != nil {
		return err
	}
	return os.Rename(base+".json.partial", base+".json")
}
