//go:build cgo && !nompi

package mpi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/timing"
)

// The ping-pong benchmark needs two ranks, so BenchmarkPingPong re-executes
// this test binary under mpirun with pingPongChildEnv set; TestMain then runs
// pingPongChild instead of the tests. Both loops, Go-driven and C, run in the
// same binary, interleaved in blocks, and rank 0 prints their round trips'
// median and p99 as JSON.
const pingPongChildEnv = "RB_PINGPONG_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(pingPongChildEnv) != "" {
		if err := pingPongChild(); err != nil {
			fmt.Fprintln(os.Stderr, "ping-pong child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type pingPongStats struct {
	GoMedianNs, GoP99Ns       float64
	CMedianNs, CP99Ns         float64
	BatchMedianNs, BatchP99Ns float64
	N                         int
}

func pingPongChild() error {
	runtime.LockOSThread()
	if err := Init(); err != nil {
		return err
	}
	defer Finalize()
	w := World()
	if w.Size() != 2 {
		return fmt.Errorf("needs 2 ranks, have %d", w.Size())
	}
	const blocks, perBlock, size = 20, 1000, 8
	buf := make([]byte, size)
	mono := timing.NewMonotonic()
	goRTT := make([]timing.Ticks, 0, blocks*perBlock)
	cRTT := make([]int64, 0, blocks*perBlock)
	cOut := make([]int64, perBlock)
	batchRTT := make([]timing.Ticks, 0, blocks*perBlock)
	bStart, bEnd := make([]timing.Ticks, perBlock), make([]timing.Ticks, perBlock)
	o := &Observation{Call: CallPingPong, Send: buf, Recv: make([]byte, size), Count: size, Type: Byte, Peer: 1}
	other := 1 - w.Rank()
	// Warm up both paths.
	if err := pingPongC(w, perBlock, size, buf, cOut); err != nil {
		return err
	}
	for b := 0; b < blocks; b++ {
		for i := 0; i < perBlock; i++ {
			t0 := mono.Now()
			var err error
			if w.Rank() == 0 {
				if err = w.Send(buf, other, 1); err == nil {
					err = w.Recv(buf, other, 1)
				}
			} else {
				if err = w.Recv(buf, other, 1); err == nil {
					err = w.Send(buf, other, 1)
				}
			}
			if err != nil {
				return err
			}
			goRTT = append(goRTT, mono.Now()-t0)
		}
		if err := pingPongC(w, perBlock, size, buf, cOut); err != nil {
			return err
		}
		cRTT = append(cRTT, cOut...)
		if err := ObserveBatch(w, o, mono, nil, bStart, bEnd); err != nil {
			return err
		}
		for i := range bStart {
			batchRTT = append(batchRTT, bEnd[i]-bStart[i])
		}
	}
	if w.Rank() != 0 {
		return nil
	}
	gm, gp := medianP99(goRTT)
	cm, cp := medianP99(cRTT)
	bm, bp := medianP99(batchRTT)
	return json.NewEncoder(os.Stdout).Encode(pingPongStats{gm, gp, cm, cp, bm, bp, len(goRTT)})
}

func medianP99[T ~int64](x []T) (med, p99 float64) {
	s := slices.Clone(x)
	slices.Sort(s)
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		lo := int(h)
		if lo+1 >= len(s) {
			return float64(s[lo])
		}
		return float64(s[lo]) + (h-float64(lo))*float64(s[lo+1]-s[lo])
	}
	return q(0.5), q(0.99)
}

var initOnce sync.Once
var initErr error

// initSingleton initializes MPI in this process (a singleton job) for the
// single-process benchmarks.
func initSingleton(b *testing.B) {
	initOnce.Do(func() {
		for _, kv := range mpirun.OpenMPIEnv {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
		initErr = Init()
	})
	if initErr != nil {
		b.Skip("MPI singleton init failed:", initErr)
	}
}

// BenchmarkEmptyCgoCall is the floor of every binding call.
func BenchmarkEmptyCgoCall(b *testing.B) {
	for b.Loop() {
		emptyCall()
	}
}

func BenchmarkWtime(b *testing.B) {
	initSingleton(b)
	for b.Loop() {
		Wtime()
	}
}

func BenchmarkRank(b *testing.B) {
	initSingleton(b)
	w := World()
	for b.Loop() {
		w.Rank()
	}
}

// BenchmarkPingPong reports the 8-byte round trip three ways, measured in
// one mpirun of the library this binary is built for: driven from Go (a cgo
// call per Send and Recv), the same loop written in C, and ObserveBatch (the
// engine's path: a batch of observations in one cgo call). Median and p99 in
// ns, and their ratios to C.
func BenchmarkPingPong(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	var f *mpirun.Flavor
	for _, a := range mpirun.Available() {
		if a.Name == BuildFlavor {
			f = &a
		}
	}
	if f == nil {
		b.Skipf("no %s launcher", BuildFlavor)
	}
	var st pingPongStats
	for b.Loop() {
		r := mpirun.Run(*f, 2, 2*time.Minute, []string{pingPongChildEnv + "=1"}, exe, "-test.run=^$")
		if r.Err != nil {
			b.Fatalf("%s: %v\n%s\n%s", filepath.Base(exe), r.Err, r.Stdout, r.Stderr)
		}
		if err := json.Unmarshal([]byte(lastLine(r.Stdout)), &st); err != nil {
			b.Fatalf("parse %q: %v", r.Stdout, err)
		}
	}
	b.ReportMetric(st.GoMedianNs, "go-median-ns")
	b.ReportMetric(st.GoP99Ns, "go-p99-ns")
	b.ReportMetric(st.CMedianNs, "c-median-ns")
	b.ReportMetric(st.CP99Ns, "c-p99-ns")
	b.ReportMetric(st.BatchMedianNs, "batch-median-ns")
	b.ReportMetric(st.BatchP99Ns, "batch-p99-ns")
	b.ReportMetric(st.GoMedianNs/st.CMedianNs, "median-go/c")
	b.ReportMetric(st.GoP99Ns/st.CP99Ns, "p99-go/c")
	b.ReportMetric(st.BatchP99Ns/st.CP99Ns, "p99-batch/c")
	b.ReportMetric(0, "ns/op")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
