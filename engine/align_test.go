package engine_test

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// fboxRings models Open MPI's two fast-box rings between ranks 0 and 1
// (engine.FboxNext): pos[r] is where the next message from rank r starts.
// The loop runs slow while the two rings stand at slots of different
// parity (engine/alignlevel.go).
type fboxRings struct {
	mu  sync.Mutex
	pos [2]int
}

func (f *fboxRings) send(from, payload int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pos[from] = engine.FboxNext(f.pos[from], engine.FboxSlots(16, payload))
}

func (f *fboxRings) misaligned() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pos[0]%2 != f.pos[1]%2
}

// ringComm puts a simulated rank on the modelled rings: every message with
// mpi.TagAlign it sends moves its ring as Open MPI's would, and every
// observation while the rings are misaligned takes slow longer, inside its
// timed region (the simulator's virtual time advances by as much).
type ringComm struct {
	mpi.Comm
	r     *mpitest.Rank
	clk   timing.Clock
	rings *fboxRings
	slow  time.Duration
}

func (c *ringComm) Send(buf []byte, dest, tag int) error {
	if tag == mpi.TagAlign && c.r.ID() < 2 {
		c.rings.send(c.r.ID(), len(buf))
	}
	return c.Comm.Send(buf, dest, tag)
}

func (c *ringComm) Observe(o *mpi.Observation, clk timing.Clock) error {
	if err := c.Comm.Observe(o, clk); err != nil {
		return err
	}
	if c.rings.misaligned() {
		// The slow alignment: the call took longer. Its end timestamp
		// moves by as many ticks, and the rank's virtual time with it.
		before := clk.Now()
		c.r.Sleep(c.slow)
		o.End += clk.Now() - before
	}
	return nil
}

// TestAlignProbe against the modelled rings: started misaligned (an odd
// offset, 41 slots) or aligned at an even one (60 slots), the probe levels
// the rings, sees the moved ring slower by the model's slow, levels them
// again, and every measured observation runs fast; with no difference
// between the alignments (MPICH) it levels them all the same. Without the
// probe, or for a message larger than the fast box takes (2 KiB), a
// misaligned start stays slow. With runtime imb the probe does not level
// and keeps the slower alignment, where IMB-MPI1 runs: a slow start stays
// slow, a fast start is moved. The sidecar records what the probe saw and
// which alignment it kept.
func TestAlignProbe(t *testing.T) {
	const slow = 20 * time.Microsecond // the simulated allreduce itself takes about 2.2 µs
	for _, c := range []struct {
		name            string
		startMisaligned bool
		slow            time.Duration
		probe           int
		bytes           int
		wantMoved       bool
		wantMisaligned  bool
		runtime         window.RuntimeType
	}{
		{"slow start", true, slow, 50, 8, false, false, window.RuntimeLocal},
		{"fast start", false, slow, 50, 8, false, false, window.RuntimeLocal},
		{"no difference", true, 0, 50, 8, false, false, window.RuntimeLocal},
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
			rings := &fboxRings{pos: [2]int{40, 100}}
			if c.startMisaligned {
				rings.pos[1] = 81
			}
			err = w.Run(func(r *mpitest.Rank) error {
				rc := &ringComm{Comm: r.Comm(), r: r, clk: r.Clock(), rings: rings, slow: c.slow}
				e := &engine.Engine{Comm: rc, Clock: r.Clock()}
				var s engine.Sink
				if r.ID() == 0 {
					s = sink
				}
				ex := engine.Experiment{Call: mpi.CallAllreduce, MsizeBytes: c.bytes, Type: mpi.Float64, Nrep: 400, Warmup: 10,
					AlignProbe: c.probe, Runtime: c.runtime, LoopReps: 1, Sync: window.Config{Method: window.Barrier}}
				_, err := e.Run([]engine.Experiment{ex}, s)
				ends[r.ID()] = rings.misaligned()
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if ends[0] != ends[1] || ends[0] != c.wantMisaligned {
				t.Errorf("rings end misaligned as rank 0 sees them %v, as rank 1 does %v; want both %v", ends[0], ends[1], c.wantMisaligned)
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
			kept := rawdata.AlignLevel
			if c.runtime == window.RuntimeIMB {
				kept = rawdata.AlignSlower
			}
			if ap.Observations != c.probe || ap.Moved != c.wantMoved || ap.Kept != kept {
				t.Errorf("probe %+v, want %d observations, moved %v, kept %s", ap, c.probe, c.wantMoved, kept)
			}
			if c.slow > 0 && kept == rawdata.AlignSlower {
				if d := ap.MedianMovedS - ap.MedianAsIsS; c.startMisaligned && d > 0 || !c.startMisaligned && d < 0 {
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
