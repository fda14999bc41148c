package mpitest

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// cpuTime returns the process's user+system CPU time, to report throughput
// per CPU second, which other load on the machine disturbs less than
// throughput per wall-clock second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report adds msgs/s (wall clock) and msgs/cpu-s metrics.
func report(b *testing.B, msgs int64, wall, cpu time.Duration) {
	b.ReportMetric(float64(msgs)/wall.Seconds(), "msgs/s")
	if cpu > 0 {
		b.ReportMetric(float64(msgs)/cpu.Seconds(), "msgs/cpu-s")
	}
}

// treePingPong runs, in each of the ⌈log2 P⌉ rounds of a binomial tree,
// reps 8-byte ping-pongs between every parent r (r mod 2^(i+1) = 0) and its
// child r + 2^i, as a tree-based clock synchronization does.
func treePingPong(r *Rank, reps int) error {
	c := r.Comm()
	me, p := c.Rank(), c.Size()
	buf := make([]byte, 8)
	for step := 1; step < p; step *= 2 {
		switch {
		case me%(2*step) == 0 && me+step < p:
			for range reps {
				if err := c.Send(buf, me+step, 0); err != nil {
					return err
				}
				if err := c.Recv(buf, me+step, 0); err != nil {
					return err
				}
			}
		case me%(2*step) == step:
			for range reps {
				if err := c.Recv(buf, me-step, 0); err != nil {
					return err
				}
				if err := c.Send(buf, me-step, 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func TestScale1024(t *testing.T) {
	reps := 100
	if testing.Short() {
		reps = 10
	}
	w, err := New(Config{Ranks: 1024, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := w.Run(func(r *Rank) error { return treePingPong(r, reps) }); err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	want := int64(2 * reps * 1023)
	if w.Messages() != want {
		t.Errorf("Messages() = %d, want %d", w.Messages(), want)
	}
	// The rate is informative (BenchmarkPingPong measures it); the 30 s
	// limit, 100 times what it takes here, only catches a simulator that
	// went quadratic in the ranks.
	t.Logf("1024 ranks, %d messages in %v (%.3g messages/s)", w.Messages(), el, float64(w.Messages())/el.Seconds())
	if el > 30*time.Second {
		t.Errorf("took %v", el)
	}
}

// BenchmarkPingPong reports simulated messages per second for a binomial
// tree of ping-pongs over P ranks; b.N is the number of messages (rounded
// down to whole ping-pongs), so ns/op is the real time per message.
func BenchmarkPingPong(b *testing.B) {
	for _, p := range []int{2, 64, 1024} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			w, err := New(Config{Ranks: p, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			// b.N messages: every pair exchanges 2·reps messages per round.
			reps := max(1, b.N/(2*(p-1)))
			b.ResetTimer()
			start, cpu := time.Now(), cpuTime()
			if err := w.Run(func(r *Rank) error { return treePingPong(r, reps) }); err != nil {
				b.Fatal(err)
			}
			report(b, w.Messages(), time.Since(start), cpuTime()-cpu)
		})
	}
}

// BenchmarkAllreduce reports simulated messages per second of 8-element
// float64 Allreduce on 64 ranks.
func BenchmarkAllreduce(b *testing.B) {
	w, err := New(Config{Ranks: 64, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu := time.Now(), cpuTime()
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		s, d := make([]byte, 64), make([]byte, 64)
		for range b.N {
			if err := c.Allreduce(s, d, 8, mpi.Float64, mpi.Sum); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	report(b, w.Messages(), time.Since(start), cpuTime()-cpu)
}

// TestLargeWorld uses more ranks than denseLinks, so links are counted in
// maps.
func TestLargeWorld(t *testing.T) {
	const p = denseLinks + 904
	w, err := New(Config{Ranks: p, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		x, sum := []int64{int64(c.Rank())}, []int64{0}
		if err := mpi.Allreduce(c, x, sum, mpi.Sum); err != nil {
			return err
		}
		if sum[0] != p*(p-1)/2 {
			return fmt.Errorf("sum %d", sum[0])
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSplitMemoryLinear: a Split of P ranks allocates O(P) bytes in all. An
// allgather of the (color, key) pairs on every rank, as MPI does it, would
// hold 16·P bytes per rank, twice over in the broadcast's messages: at
// least 32·P² bytes, 32 MiB at 1024 ranks; the limit is a quarter of that.
func TestSplitMemoryLinear(t *testing.T) {
	const p = 1024
	w, err := New(Config{Ranks: p, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = w.Run(func(r *Rank) error {
		s, err := r.Comm().Split(r.ID()%4, -r.ID())
		if err != nil {
			return err
		}
		if s.Size() != p/4 || s.Rank() != (p-1-r.ID())/4 {
			return fmt.Errorf("rank %d: size %d, rank %d in its part", r.ID(), s.Size(), s.Rank())
		}
		return nil
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got, lim := after.TotalAlloc-before.TotalAlloc, uint64(8*p*p); got > lim {
		t.Errorf("Split of %d ranks allocated %d bytes, limit %d", p, got, lim)
	} else {
		t.Logf("Split of %d ranks allocated %d bytes (%d per rank)", p, got, got/p)
	}
}
