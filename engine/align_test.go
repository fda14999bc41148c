package engine_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// ringComm models Open MPI's fast-box ring on top of a simulated rank:
// every message with mpi.TagAlign this rank sends or receives moves the
// ring by one slot, and every observation while the ring is at an odd
// slot takes slow longer, inside its timed region (the simulator's
// virtual time advances by as much). The state starts at odd when
// startOdd, as a run's history may leave it.
type ringComm struct {
	mpi.Comm
	r     *mpitest.Rank
	clk   timing.Clock
	odd   bool
	slow  time.Duration
	moves int
}

func (c *ringComm) Send(buf []byte, dest, tag int) error {
	if tag == mpi.TagAlign {
		c.odd, c.moves = !c.odd, c.moves+1
	}
	return c.Comm.Send(buf, dest, tag)
}

func (c *ringComm) Recv(buf []byte, src, tag int) error {
	if tag == mpi.TagAlign {
		c.odd, c.moves = !c.odd, c.moves+1
	}
	return c.Comm.Recv(buf, src, tag)
}

func (c *ringComm) Observe(o *mpi.Observation, clk timing.Clock) error {
	if err := c.Comm.Observe(o, clk); err != nil {
		return err
	}
	if c.odd {
		// The slow alignment: the call took longer. Its end timestamp
		// moves by as many ticks, and the rank's virtual time with it.
		before := clk.Now()
		c.r.Sleep(c.slow)
		o.End += clk.Now() - before
	}
	return nil
}

// TestAlignProbe against the modelled ring: started in the slow alignment,
// the probe moves the ring and every measured observation runs fast;
// started in the fast one, it moves it back; with no difference between
// the alignments (MPICH), it keeps the first. Without the probe, or for a
// message larger than the fast box takes (2 KiB), the slow start stays
// slow. With runtime imb the probe keeps the slower alignment, where
// IMB-MPI1 runs: a slow start stays slow, a fast start is moved. Every rank
// ends in the same alignment, and the sidecar records what the probe saw
// and which alignment it kept.
func TestAlignProbe(t *testing.T) {
	const slow = 20 * time.Microsecond // the simulated allreduce itself takes about 2.2 µs
	for _, c := range []struct {
		name      string
		startOdd  bool
		slow      time.Duration
		probe     int
		bytes     int
		wantMoved bool
		wantOdd   bool
		runtime   window.RuntimeType
	}{
		{"slow start", true, slow, 50, 8, true, false, window.RuntimeLocal},
		{"fast start", false, slow, 50, 8, false, false, window.RuntimeLocal},
		{"no difference", true, 0, 50, 8, false, true, window.RuntimeLocal},
		{"no probe", true, slow, 0, 8, false, true, window.RuntimeLocal},
		{"2 KiB", true, slow, 50, 2048, false, true, window.RuntimeLocal},
		{"imb slow start", true, slow, 50, 8, false, true, window.RuntimeIMB},
		{"imb fast start", false, slow, 50, 8, true, true, window.RuntimeIMB},
		{"imb no difference", false, 0, 50, 8, false, false, window.RuntimeIMB},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			sink := &memSink{}
			ends := make([]bool, 2)
			err = w.Run(func(r *mpitest.Rank) error {
				rc := &ringComm{Comm: r.Comm(), r: r, clk: r.Clock(), odd: c.startOdd, slow: c.slow}
				e := &engine.Engine{Comm: rc, Clock: r.Clock()}
				var s engine.Sink
				if r.ID() == 0 {
					s = sink
				}
				ex := engine.Experiment{Call: mpi.CallAllreduce, MsizeBytes: c.bytes, Type: mpi.Float64, Nrep: 400, Warmup: 10,
					AlignProbe: c.probe, Runtime: c.runtime, LoopReps: 1, Sync: window.Config{Method: window.Barrier}}
				_, err := e.Run([]engine.Experiment{ex}, s)
				ends[r.ID()] = rc.odd
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if ends[0] != ends[1] || ends[0] != c.wantOdd {
				t.Errorf("ring ends odd on rank 0 %v, rank 1 %v; want both %v", ends[0], ends[1], c.wantOdd)
			}
			if len(sink.sums) != 1 || len(sink.rows) != 400 {
				t.Fatalf("%d summaries, %d rows", len(sink.sums), len(sink.rows))
			}
			rt := make([]float64, len(sink.rows))
			for i, row := range sink.rows {
				rt[i] = row.RuntimeS
			}
			slices.Sort(rt)
			med := rt[len(rt)/2]
			ap := sink.sums[0].Align
			if c.probe == 0 || c.bytes > 1024 {
				if ap != nil {
					t.Errorf("no probe asked, sidecar says %+v", ap)
				}
				if c.slow > 0 && med < c.slow.Seconds() {
					t.Errorf("median %.3g s without the probe, want the slow alignment's (> %.3g s)", med, c.slow.Seconds())
				}
				return
			}
			if ap == nil {
				t.Fatal("the sidecar records no probe")
			}
			kept := rawdata.AlignFaster
			if c.runtime == window.RuntimeIMB {
				kept = rawdata.AlignSlower
			}
			if ap.Observations != c.probe || ap.Moved != c.wantMoved || ap.Kept != kept {
				t.Errorf("probe %+v, want %d observations, moved %v, kept %s", ap, c.probe, c.wantMoved, kept)
			}
			if c.slow > 0 && kept == rawdata.AlignSlower {
				if d := ap.MedianMovedS - ap.MedianAsIsS; c.startOdd && d > 0 || !c.startOdd && d < 0 {
					t.Errorf("probe medians as is %.3g s, moved %.3g s: the wrong one is slower", ap.MedianAsIsS, ap.MedianMovedS)
				}
				if med < c.slow.Seconds() {
					t.Errorf("measured median %.3g s, want the slow alignment's (> %.3g s)", med, c.slow.Seconds())
				}
			} else if c.slow > 0 {
				// The probe saw both alignments: they differ by the model's slow.
				if d := math.Abs(ap.MedianAsIsS - ap.MedianMovedS); math.Abs(d-c.slow.Seconds()) > 0.1*c.slow.Seconds() {
					t.Errorf("probe medians %.3g and %.3g s differ by %.3g s, want %v", ap.MedianAsIsS, ap.MedianMovedS, d, c.slow)
				}
				if med >= c.slow.Seconds()/2 {
					t.Errorf("measured median %.3g s, want the fast alignment's (< %.3g s)", med, c.slow.Seconds()/2)
				}
			}
		})
	}
}
