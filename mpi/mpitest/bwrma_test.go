package mpitest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// bwNet is a network without jitter or spikes: 1 µs latency, 1 GB/s.
var bwNet = Latency{Base: time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: 1e9}

func p2pObs(r *Rank, call mpi.Call, count int, sync mpi.SyncKind) (*mpi.Observation, []int64, []int64) {
	p := r.Comm().Size()
	send, recv := make([]int64, count), make([]int64, count)
	for i := range send {
		send[i] = int64(1000*(r.ID()+1) + i)
		recv[i] = -1
	}
	return &mpi.Observation{Call: call, Send: mpi.Bytes(send), Recv: mpi.Bytes(recv), Count: count, Type: mpi.Int64,
		Op: mpi.Sum, Root: 0, Peer: p - 1, Reps: 3, Sync: sync, BWWindow: 5}, send, recv
}

func sentBy(r, i int) int64 { return int64(1000*(r+1) + i) }

// observePrepared runs Prepare, Observe and the release.
func observePrepared(r *Rank, o *mpi.Observation) error {
	release, err := mpi.Prepare(r.Comm(), o)
	if err != nil {
		return err
	}
	if err := r.Comm().Observe(o, r.Clock()); err != nil {
		return err
	}
	return release()
}

var syncs = []mpi.SyncKind{mpi.SyncNone, mpi.SyncBarrier, mpi.SyncDoubleBarrier, mpi.SyncDissemination}

// TestBandwidthElements checks every received element of bw, bibw and
// mbw_mr on 4 ranks (bw and bibw between ranks 0 and 3).
func TestBandwidthElements(t *testing.T) {
	const p = 4
	for _, call := range []mpi.Call{mpi.CallBW, mpi.CallBiBW, mpi.CallMBWMR} {
		for _, sync := range syncs {
			w, _ := New(Config{Ranks: p, Seed: 3})
			err := w.Run(func(r *Rank) error {
				o, _, recv := p2pObs(r, call, 100, sync)
				if err := observePrepared(r, o); err != nil {
					return err
				}
				from := -1
				me := r.ID()
				switch {
				case call == mpi.CallBW && me == p-1, call == mpi.CallBiBW && me == p-1:
					from = 0
				case call == mpi.CallBiBW && me == 0:
					from = p - 1
				case call == mpi.CallMBWMR && me >= p/2:
					from = me - p/2
				}
				for i, v := range recv {
					want := int64(-1)
					if from >= 0 {
						want = sentBy(from, i)
					}
					if v != want {
						return fmt.Errorf("element %d = %d, want %d", i, v, want)
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("%v/%v: %v", call, sync, err)
			}
		}
	}
}

// TestBandwidthVirtualTime checks the duration of one window against the
// model on an exact network: bw and mbw_mr w·n/B + 2L on a sender, bibw
// w·n/B + L, within the clock reads' overhead.
func TestBandwidthVirtualTime(t *testing.T) {
	const n, win = 1000, 8 // bytes, messages
	L, perMsg := 1e-6, float64(n)/1e9
	for _, c := range []struct {
		call mpi.Call
		p    int
		want float64
	}{
		{mpi.CallBW, 2, win*perMsg + 2*L},
		{mpi.CallMBWMR, 4, win*perMsg + 2*L},
		{mpi.CallMBWMR, 6, win*perMsg + 2*L},
		{mpi.CallBiBW, 2, win*perMsg + L},
	} {
		w, _ := New(Config{Ranks: c.p, Seed: 5, Latency: bwNet})
		err := w.Run(func(r *Rank) error {
			o, _, _ := p2pObs(r, c.call, n/8, mpi.SyncBarrier)
			o.Reps, o.BWWindow = 1, win
			if err := observePrepared(r, o); err != nil {
				return err
			}
			sender := r.ID() == 0 || c.call == mpi.CallBiBW || (c.call == mpi.CallMBWMR && r.ID() < c.p/2)
			if !sender {
				return nil
			}
			got := r.Clock().Freq().Seconds(o.End - o.Start)
			if math.Abs(got-c.want) > 100e-9 {
				return fmt.Errorf("rank %d: window took %.4g s, model %.4g s", r.ID(), got, c.want)
			}
			return nil
		})
		if err != nil {
			t.Errorf("%v on %d ranks: %v", c.call, c.p, err)
		}
	}
}

// TestRMAElements checks Put and Accumulate in the target's window and Get
// in the origin's buffer, element by element, for every synchronization,
// on 3 ranks (origin 0, target 2, rank 1 a bystander).
func TestRMAElements(t *testing.T) {
	const p, count = 3, 16
	for _, call := range []mpi.Call{mpi.CallPut, mpi.CallGet, mpi.CallAccumulate} {
		for _, rs := range mpi.RMASyncs() {
			for _, sync := range syncs {
				w, _ := New(Config{Ranks: p, Seed: 4})
				err := w.Run(func(r *Rank) error {
					c := r.Comm()
					o, _, recv := p2pObs(r, call, count, sync)
					o.RMASync = rs
					release, err := mpi.Prepare(c, o)
					if err != nil {
						return err
					}
					win := mpi.WindowBytes(c)
					if len(win) != 8*count {
						return fmt.Errorf("window of %d bytes, want %d", len(win), 8*count)
					}
					if r.ID() == p-1 {
						for i := range count {
							binary.NativeEndian.PutUint64(win[8*i:], uint64(7*sentBy(p-1, i)))
						}
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					if err := c.Observe(o, r.Clock()); err != nil {
						return err
					}
					if err := c.Barrier(); err != nil {
						return err
					}
					for i := range count {
						switch {
						case call == mpi.CallGet && r.ID() == 0:
							if recv[i] != 7*sentBy(p-1, i) {
								return fmt.Errorf("Get: origin element %d = %d, want %d", i, recv[i], 7*sentBy(p-1, i))
							}
						case call == mpi.CallGet && r.ID() == p-1:
							if v := int64(binary.NativeEndian.Uint64(win[8*i:])); v != 7*sentBy(p-1, i) {
								return fmt.Errorf("Get changed the target's element %d to %d", i, v)
							}
						case r.ID() == p-1:
							want := sentBy(0, i)
							if call == mpi.CallAccumulate {
								want = 7*sentBy(p-1, i) + int64(o.Reps)*sentBy(0, i)
							}
							if v := int64(binary.NativeEndian.Uint64(win[8*i:])); v != want {
								return fmt.Errorf("target element %d = %d, want %d", i, v, want)
							}
						case r.ID() != 0 && recv[i] != -1:
							return fmt.Errorf("bystander's buffer changed")
						}
					}
					if err := release(); err != nil {
						return err
					}
					if mpi.WindowBytes(c) != nil {
						return fmt.Errorf("window still held after the release")
					}
					return nil
				})
				if err != nil {
					t.Errorf("%v/%v/%v: %v", call, rs, sync, err)
				}
			}
		}
	}
}

// TestRMAVirtualTime checks one call's duration against the model on an
// exact network with 2 ranks entering together: flush n/B + 2L, lock
// n/B + 4L, fence n/B + 3L on the origin and n/B + 4L on the target.
func TestRMAVirtualTime(t *testing.T) {
	const n = 4000
	L, xfer := 1e-6, float64(n)/1e9
	for _, call := range []mpi.Call{mpi.CallPut, mpi.CallGet, mpi.CallAccumulate} {
		for _, c := range []struct {
			rs             mpi.RMASync
			origin, target float64 // -1: the target only takes timestamps
		}{
			{mpi.RMAFlush, xfer + 2*L, -1},
			{mpi.RMALock, xfer + 4*L, -1},
			{mpi.RMAFence, xfer + 3*L, xfer + 4*L},
		} {
			w, _ := New(Config{Ranks: 2, Seed: 6, Latency: bwNet})
			err := w.Run(func(r *Rank) error {
				o, _, _ := p2pObs(r, call, n/8, mpi.SyncNone)
				o.RMASync, o.Reps = c.rs, 1
				release, err := mpi.Prepare(r.Comm(), o)
				if err != nil {
					return err
				}
				// Prepare's barrier leaves both ranks at the same time.
				if err := r.Comm().Observe(o, r.Clock()); err != nil {
					return err
				}
				want := c.origin
				if r.ID() == 1 {
					want = c.target
				}
				got := r.Clock().Freq().Seconds(o.End - o.Start)
				if want >= 0 && math.Abs(got-want) > 100e-9 {
					return fmt.Errorf("rank %d: %.4g s, model %.4g s", r.ID(), got, want)
				}
				if want < 0 && got > 100e-9 {
					return fmt.Errorf("passive target took %.4g s", got)
				}
				return release()
			})
			if err != nil {
				t.Errorf("%v/%v: %v", call, c.rs, err)
			}
		}
	}
}

// TestP2PRefusals: unprepared calls, mbw_mr on an odd number of ranks and
// Accumulate on bytes are refused with a message that says why.
func TestP2PRefusals(t *testing.T) {
	w, _ := New(Config{Ranks: 3, Seed: 1})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		for _, call := range []mpi.Call{mpi.CallBW, mpi.CallPut} {
			o, _, _ := p2pObs(r, call, 4, mpi.SyncNone)
			if err := c.Observe(o, r.Clock()); err == nil || !strings.Contains(err.Error(), "Prepare") {
				return fmt.Errorf("unprepared %v: got %v", call, err)
			}
		}
		o, _, _ := p2pObs(r, mpi.CallMBWMR, 4, mpi.SyncNone)
		if _, err := mpi.Prepare(c, o); err == nil || !strings.Contains(err.Error(), "even") {
			return fmt.Errorf("mbw_mr on 3 ranks: got %v", err)
		}
		o, _, _ = p2pObs(r, mpi.CallAccumulate, 4, mpi.SyncNone)
		o.Type = mpi.Byte
		if _, err := mpi.Prepare(c, o); err == nil {
			return fmt.Errorf("Accumulate on bytes accepted")
		}
		o, _, _ = p2pObs(r, mpi.CallBW, 4, mpi.SyncNone)
		o.BWWindow = -1
		if _, err := mpi.Prepare(c, o); err == nil {
			return fmt.Errorf("negative window accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
