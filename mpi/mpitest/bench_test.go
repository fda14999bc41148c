package mpitest

import (
	"fmt"
	"testing"
	"time"
)

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
	t.Logf("1024 ranks, %d messages in %v (%.3g messages/s)", w.Messages(), el, float64(w.Messages())/el.Seconds())
	if el > 30*time.Second {
		t.Errorf("took %v", el)
	}
}

// BenchmarkPingPong reports simulated messages per second for a binomial
// tree of ping-pongs over P ranks (each op is one message).
func BenchmarkPingPong(b *testing.B) {
	for _, p := range []int{2, 64, 1024} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			w, err := New(Config{Ranks: p, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			rounds := 0
			for s := 1; s < p; s *= 2 {
				rounds++
			}
			// b.N messages: every pair exchanges 2·reps messages per round.
			reps := max(1, b.N/(2*(p-1)))
			b.ResetTimer()
			start := time.Now()
			if err := w.Run(func(r *Rank) error { return treePingPong(r, reps) }); err != nil {
				b.Fatal(err)
			}
			el := time.Since(start)
			b.ReportMetric(float64(w.Messages())/el.Seconds(), "msgs/s")
			b.ReportMetric(el.Seconds()*1e9/float64(w.Messages()), "ns/msg")
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
	start := time.Now()
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		s, d := make([]byte, 64), make([]byte, 64)
		for range b.N {
			if err := c.Allreduce(s, d, 8, 4, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	b.ReportMetric(float64(w.Messages())/el.Seconds(), "msgs/s")
}
