package mpitest

import (
	"testing"
	"time"
)

// A descheduled rank resumes late only from receives it waited for, by
// Min…Max, and CPUWait adds up exactly what it lost; the same seed gives the
// same waits.
func TestDeschedule(t *testing.T) {
	run := func() (lost [2]time.Duration, waits [2]int64, end [2]float64) {
		w, err := New(Config{Ranks: 2, Seed: 7, Latency: Latency{Jitter: Off, SpikeProb: Off},
			Deschedule: Deschedule{Prob: 1, Min: time.Millisecond, Max: 2 * time.Millisecond, Ranks: []int{1}}})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Run(func(r *Rank) error {
			c := r.Comm()
			for range 10 { // rank 1 waits for each ping
				if c.Rank() == 0 {
					if err := c.SendFloat64(1, 1, 0); err != nil {
						return err
					}
					if _, err := c.RecvFloat64(1, 0); err != nil {
						return err
					}
				} else {
					if _, err := c.RecvFloat64(0, 0); err != nil {
						return err
					}
					if err := c.SendFloat64(1, 0, 0); err != nil {
						return err
					}
				}
			}
			if c.Rank() == 1 { // a message already there: no wait
				r.Sleep(time.Second)
			} else if err := c.SendFloat64(2, 1, 1); err != nil {
				return err
			}
			if c.Rank() == 1 {
				if _, err := c.RecvFloat64(0, 1); err != nil {
					return err
				}
			}
			lost[c.Rank()], waits[c.Rank()] = r.CPUWait()
			end[c.Rank()] = r.TrueNow()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	lost, waits, end := run()
	if lost[0] != 0 || waits[0] != 0 {
		t.Errorf("rank 0 is not descheduled but lost %v in %d waits", lost[0], waits[0])
	}
	if waits[1] != 10 || lost[1] < 10*time.Millisecond || lost[1] > 20*time.Millisecond {
		t.Errorf("rank 1 lost %v in %d waits, want 10 waits of 1–2 ms", lost[1], waits[1])
	}
	// Rank 0's last pong came after rank 1's last wait: ten round trips of
	// 2 µs plus what rank 1 lost.
	if got, want := end[0], lost[1].Seconds()+10*2e-6; got < want-1e-9 || got > want+1e-6 {
		t.Errorf("rank 0 ended at %.9f s, want %.9f s", got, want)
	}
	if l2, w2, _ := run(); l2 != lost || w2 != waits {
		t.Errorf("same seed, different waits: %v %v then %v %v", lost, waits, l2, w2)
	}
	if _, err := New(Config{Ranks: 2, Deschedule: Deschedule{Prob: 2}}); err == nil {
		t.Error("Prob 2 accepted")
	}
	if _, err := New(Config{Ranks: 2, Deschedule: Deschedule{Prob: 1, Ranks: []int{2}}}); err == nil {
		t.Error("rank 2 of 2 accepted")
	}
}
