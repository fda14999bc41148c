package main

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// Config says what to measure and how.
type Config struct {
	Sync   string        // clock synchronization spec, e.g. "hca3" (see clocksync.Spec)
	Method window.Method // process synchronization, e.g. window.AdaptiveSKaMPI
	Window time.Duration // initial window per observation
	N      int           // measured observations
	Warmup int           // unrecorded observations before (they adapt the window)
	Bytes  int           // halo size per neighbour, bytes (a multiple of 8)
}

// Result is what rank 0 reports; times are seconds.
type Result struct {
	N, Invalid    int     // observations, and how many were flagged late or expired
	MedianS, P99S float64 // of the valid completion times (max over ranks of end − start)
	WindowS       float64 // the window at the end (the adaptive policy may grow it)
	Sync          string  // the clock synchronization, as recorded in metadata
	// RuntimesS and Codes are every observation's completion time and
	// error code, in order (for the raw data: WriteRaw).
	RuntimesS []float64
	Codes     []window.Code
}

// Bench runs the whole benchmark collectively on c, reading clk. It returns
// the Result on rank 0 (nil elsewhere) and every rank's own Record, whose
// raw timestamps a test can check against ground truth.
func Bench(c mpi.Comm, clk timing.Clock, cfg Config) (*Result, *window.Record, error) {
	if c.Size() < 2 || cfg.Bytes%8 != 0 || cfg.N < 1 {
		return nil, nil, fmt.Errorf("custom: need ≥ 2 ranks, -bytes a multiple of 8 and -n ≥ 1")
	}
	// 1. Synchronize the clocks: g maps this rank's clock to rank 0's time.
	sp, err := clocksync.ParseSpec(cfg.Sync)
	if err != nil {
		return nil, nil, err
	}
	alg, err := sp.New()
	if err != nil {
		return nil, nil, err
	}
	g := clocksync.NewGlobalClock(clk)
	if _, err := alg.Sync(c, g); err != nil {
		return nil, nil, err
	}

	// 2. The user's own MPI code: a halo exchange on a ring.
	h := newHalo(c, cfg.Bytes/8)

	// 3. Process synchronization: every observation starts at a common
	// window start on the synchronized clocks (or after a barrier), and
	// RunFunc times our code with the window's late/expired flags and
	// adaptive policies.
	s, err := window.New(c, clk, g, window.Config{Method: cfg.Method, Window: cfg.Window})
	if err != nil {
		return nil, nil, err
	}
	rec := window.NewRecord(s.Config().Capacity(max(cfg.N, cfg.Warmup)))
	if err := s.RunFunc(h.exchange, cfg.Warmup, rec, true); err != nil {
		return nil, nil, err
	}
	if err := s.RunFunc(h.exchange, cfg.N, rec, false); err != nil {
		return nil, nil, err
	}

	// 4. The completion time of observation i is the maximum over ranks of
	// end − start, each on its own clock (Hunold & Carpen-Amarie 2016, §4.6, "local").
	d := make([]float64, rec.N)
	for i := range d {
		d[i] = clk.Freq().Seconds(rec.End[i] - rec.Start[i])
	}
	dmax := make([]float64, rec.N)
	if err := mpi.Reduce(c, d, dmax, mpi.Max, 0); err != nil {
		return nil, nil, err
	}
	if c.Rank() != 0 {
		return nil, rec, nil
	}
	res := &Result{N: rec.N, WindowS: s.Window().Seconds(), Sync: alg.Name, RuntimesS: append([]float64(nil), dmax...), Codes: append([]window.Code(nil), rec.Code[:rec.N]...)}
	valid := dmax[:0]
	for i, v := range dmax {
		if rec.Code[i] != window.CodeValid { // the codes are the same on every rank
			res.Invalid++
			continue
		}
		valid = append(valid, v)
	}
	sum := analysis.Summarize(valid) // type-7 quantiles, as R
	res.MedianS, res.P99S = sum.Median, sum.P99
	return res, rec, nil
}

// halo is the user's code: each rank sends n float64 to each neighbour on
// a ring and receives as many from each.
type halo struct {
	c                          mpi.Comm
	left, right                int
	sendL, sendR, recvL, recvR []float64
}

func newHalo(c mpi.Comm, n int) *halo {
	p, r := c.Size(), c.Rank()
	h := &halo{c: c, left: (r + p - 1) % p, right: (r + 1) % p}
	h.sendL, h.sendR, h.recvL, h.recvR = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	return h
}

// User tags: below mpi.TagReserved (clocksync and mpi use the tags above).
const tagRight, tagLeft = 1, 2

func (h *halo) exchange() error {
	if err := mpi.Sendrecv(h.c, h.sendR, h.right, tagRight, h.recvL, h.left, tagRight); err != nil {
		return err
	}
	return mpi.Sendrecv(h.c, h.sendL, h.left, tagLeft, h.recvR, h.right, tagLeft)
}
