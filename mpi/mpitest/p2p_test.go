package mpitest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

func errorsAs[T error](err error, target *T) bool { return errors.As(err, target) }

func TestPointToPoint(t *testing.T) {
	runWorld(t, 4, func(rk *Rank) error {
		c := rk.Comm()
		r, p := c.Rank(), c.Size()
		next, prev := (r+1)%p, (r+p-1)%p
		// Ring with Sendrecv.
		out := []int64{int64(r), int64(r * r)}
		in := make([]int64, 2)
		if err := mpi.Sendrecv(c, out, next, 7, in, prev, 7); err != nil {
			return err
		}
		if in[0] != int64(prev) || in[1] != int64(prev*prev) {
			return fmt.Errorf("rank %d: Sendrecv got %v", r, in)
		}
		// Scalars.
		if err := c.SendFloat64(float64(r)+0.25, next, 1); err != nil {
			return err
		}
		if err := c.SendInt64(-int64(r), next, 2); err != nil {
			return err
		}
		i, err := c.RecvInt64(prev, 2) // tags matched independently of order
		if err != nil {
			return err
		}
		f, err := c.RecvFloat64(prev, 1)
		if err != nil {
			return err
		}
		if f != float64(prev)+0.25 || i != -int64(prev) {
			return fmt.Errorf("rank %d: scalars %v %v", r, f, i)
		}
		// Non-blocking: two Irecvs on the same (src, tag) match in posting
		// order even when waited for in reverse.
		a, b := make([]byte, 1), make([]byte, 1)
		qa, err := c.Irecv(a, prev, 3)
		if err != nil {
			return err
		}
		qb, err := c.Irecv(b, prev, 3)
		if err != nil {
			return err
		}
		for _, v := range []byte{10, 20} {
			q, err := c.Isend([]byte{v + byte(r)}, next, 3)
			if err != nil {
				return err
			}
			if err := q.Wait(); err != nil {
				return err
			}
		}
		if err := qb.Wait(); err != nil {
			return err
		}
		if err := qa.Wait(); err != nil {
			return err
		}
		if a[0] != 10+byte(prev) || b[0] != 20+byte(prev) {
			return fmt.Errorf("rank %d: Irecv order: %v %v", r, a, b)
		}
		return nil
	})
}

func TestVirtualTime(t *testing.T) {
	// Exact latency: 1 µs base, no jitter, no spikes, infinite bandwidth.
	lat := Latency{Base: time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: Off}
	w, err := New(Config{Ranks: 2, Latency: lat, Clock: ClockDist{Offset: Off, DriftPPM: Off, Overhead: 10 * time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		if r.ID() == 0 {
			r.Sleep(5 * time.Microsecond)
			if err := c.Send(make([]byte, 8), 1, 0); err != nil {
				return err
			}
			return c.Recv(make([]byte, 8), 1, 0)
		}
		if err := c.Recv(make([]byte, 8), 0, 0); err != nil {
			return err
		}
		if got := r.TrueNow(); !near(got, 6e-6, 1e-15) {
			return fmt.Errorf("receive completed at %v, want 6e-6", got)
		}
		ts := r.Clock().Now()
		if ts != 6000 {
			return fmt.Errorf("clock read %d, want 6000", ts)
		}
		return c.Send(make([]byte, 8), 0, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.TrueNow(0); !near(got, 7.01e-6, 1e-15) {
		t.Errorf("rank 0 ends at %v, want 7.01e-6", got)
	}
	if w.Messages() != 2 {
		t.Errorf("Messages() = %d, want 2", w.Messages())
	}
}

func near(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }

func TestErrors(t *testing.T) {
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		checks := []error{
			c.Send(nil, 2, 0),
			c.Send(nil, -1, 0),
			c.Send(nil, 1, -5),
			c.Recv(nil, 5, 0),
			c.Free(),
		}
		for i, e := range checks {
			var me *mpi.Error
			if !errors.As(e, &me) {
				return fmt.Errorf("check %d: got %v, want *mpi.Error", i, e)
			}
		}
		// Size mismatch: receiver gets an *mpi.Error.
		if r.ID() == 0 {
			return c.Send(make([]byte, 16), 1, 0)
		}
		e := c.Recv(make([]byte, 8), 0, 0)
		var me *mpi.Error
		if !errors.As(e, &me) || !strings.Contains(e.Error(), "16 bytes") {
			return fmt.Errorf("size mismatch: got %v", e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDeadlock(t *testing.T) {
	w, _ := New(Config{Ranks: 4})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		switch r.ID() {
		case 0:
			return c.Recv(make([]byte, 8), 1, 42) // never sent
		case 1:
			_, err := c.RecvFloat64(2, 7)
			return err
		case 2:
			return c.Barrier() // others never join
		}
		return nil // rank 3 exits
	})
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("got %v, want *DeadlockError", err)
	}
	msg := err.Error()
	for _, s := range []string{
		"rank 0: MPI_Recv waits for a message from rank 1 (world rank 1) with tag 42",
		"rank 1: MPI_Recv waits for a message from rank 2 (world rank 2) with tag 7",
		"rank 2: MPI_Barrier waits for a message from rank 1",
		"rank 3 exited",
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("deadlock report lacks %q:\n%s", s, msg)
		}
	}
	if len(d.Blocked) != 3 || d.Blocked[0].Tag != 42 || d.Blocked[1].Peer != 2 {
		t.Errorf("Blocked = %+v", d.Blocked)
	}
	if err := w.Run(func(*Rank) error { return nil }); err == nil {
		t.Error("Run after deadlock succeeded")
	}
}

func TestPanicAndError(t *testing.T) {
	w, _ := New(Config{Ranks: 3})
	err := w.Run(func(r *Rank) error {
		switch r.ID() {
		case 0:
			panic("boom")
		case 1:
			return errors.New("bad result")
		}
		_, err := r.Comm().RecvInt64(0, 0) // rank 0 is gone: deadlock
		return err
	})
	msg := fmt.Sprint(err)
	for _, s := range []string{"rank 0 panicked: boom", "rank 1: bad result", "rank 2: MPI_Recv waits", "rank 0 exited with error"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error lacks %q:\n%s", s, msg)
		}
	}
}

func TestTest(t *testing.T) {
	lat := Latency{Base: 10 * time.Microsecond, Jitter: Off, SpikeProb: Off}
	w, _ := New(Config{Ranks: 2, Latency: lat})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		if r.ID() == 1 {
			return c.SendInt64(5, 0, 0)
		}
		b := make([]byte, 8)
		q, err := c.Irecv(b, 1, 0)
		if err != nil {
			return err
		}
		polls := 0
		for {
			ok, err := q.Test()
			if err != nil {
				return err
			}
			if ok {
				break
			}
			polls++
			r.Sleep(time.Microsecond)
		}
		// Arrival at 10 µs + 0.8 ns (8 bytes at 10 GB/s): the polls at
		// 0, 1, …, 10 µs fail.
		if polls != 11 {
			return fmt.Errorf("polls = %d, want 11", polls)
		}
		return q.Wait()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSubCommunicators(t *testing.T) {
	for _, p := range testSizes {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			w, err := New(Config{Ranks: p, RanksPerNode: 2})
			if err != nil {
				t.Fatal(err)
			}
			err = w.Run(func(r *Rank) error {
				c := r.Comm()
				me := c.Rank()
				// Split by parity, reversed order.
				s, err := c.Split(me%2, -me)
				if err != nil {
					return err
				}
				n := (p - me%2 + 1) / 2
				if s.Size() != n {
					return fmt.Errorf("split size %d, want %d", s.Size(), n)
				}
				if want := n - 1 - me/2; s.Rank() != want {
					return fmt.Errorf("rank %d: split rank %d, want %d", me, s.Rank(), want)
				}
				x, sum := []int64{int64(me)}, []int64{0}
				if err := mpi.Allreduce(s, x, sum, mpi.Sum); err != nil {
					return err
				}
				var want int64
				for i := me % 2; i < p; i += 2 {
					want += int64(i)
				}
				if sum[0] != want {
					return fmt.Errorf("split allreduce %d, want %d", sum[0], want)
				}
				// Point-to-point inside the sub-communicator, same tags as in the world.
				if s.Size() > 1 {
					if err := s.SendInt64(int64(me), (s.Rank()+1)%s.Size(), 0); err != nil {
						return err
					}
					v, err := s.RecvInt64((s.Rank()+s.Size()-1)%s.Size(), 0)
					if err != nil {
						return err
					}
					if v%2 != int64(me%2) {
						return fmt.Errorf("message from the other color: %d", v)
					}
				}
				if err := s.Free(); err != nil {
					return err
				}
				if err := s.Barrier(); err == nil {
					return errors.New("Barrier on freed comm succeeded")
				}
				// Negative color: nil.
				col := 0
				if me == 0 {
					col = -1
				}
				u, err := c.Split(col, 0)
				if err != nil {
					return err
				}
				if (u == nil) != (me == 0) {
					return fmt.Errorf("rank %d: Split(-1) gave %v", me, u)
				}
				// Sub with a reversed list of the last ranks.
				list := []int{}
				for i := p - 1; i >= p/2; i-- {
					list = append(list, i)
				}
				sub, err := c.Sub(list)
				if err != nil {
					return err
				}
				if me < p/2 {
					if sub != nil {
						return fmt.Errorf("rank %d not in %v got a comm", me, list)
					}
				} else {
					if sub.Rank() != p-1-me || sub.Size() != len(list) {
						return fmt.Errorf("rank %d: Sub rank %d size %d", me, sub.Rank(), sub.Size())
					}
					b := make([]int64, 1)
					if sub.Rank() == 0 {
						b[0] = 77
					}
					if err := mpi.Bcast(sub, b, 0); err != nil {
						return err
					}
					if b[0] != 77 {
						return fmt.Errorf("Sub bcast got %d", b[0])
					}
				}
				if _, err := c.Sub([]int{0, 0}); err == nil {
					return errors.New("Sub with repeated rank succeeded")
				}
				// SplitShared: nodes of 2.
				node, err := c.SplitShared()
				if err != nil {
					return err
				}
				wantSize := min(2, p-me/2*2)
				if node.Size() != wantSize || node.Rank() != me%2 {
					return fmt.Errorf("rank %d: SplitShared rank %d size %d", me, node.Rank(), node.Size())
				}
				return node.Barrier()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A rank polls with Test for a message its peer sends only after receiving
// everything the poller produces: Test must return false (not block) while
// the peer cannot send.
func TestTestProducerConsumer(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	first := -1
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		w, _ := New(Config{Ranks: 3, Seed: 6})
		polls := make([]int, 3)
		err := w.Run(func(r *Rank) error {
			c := r.Comm()
			const items = 50
			if r.ID() == 0 {
				var done [8]byte
				q, err := c.Irecv(done[:], 1, 9)
				if err != nil {
					return err
				}
				for i := 0; ; i++ {
					if i < items {
						if err := c.SendInt64(int64(i), 1, 0); err != nil {
							return err
						}
					}
					ok, err := q.Test()
					if err != nil {
						return err
					}
					if ok {
						polls[0] = i
						return nil
					}
					r.Sleep(time.Microsecond)
				}
			}
			if r.ID() == 1 {
				for i := range items {
					v, err := c.RecvInt64(0, 0)
					if err != nil {
						return err
					}
					if v != int64(i) {
						return fmt.Errorf("item %d = %d", i, v)
					}
				}
				return c.SendInt64(1, 0, 9)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// The last item leaves at ≈ 49 µs, the answer arrives ≈ 1 µs
		// after it is received: about 51 polls.
		if polls[0] < 50 || polls[0] > 60 {
			t.Errorf("polls = %d", polls[0])
		}
		if first >= 0 && polls[0] != first {
			t.Errorf("GOMAXPROCS=%d: %d polls, want %d as with GOMAXPROCS=1", procs, polls[0], first)
		}
		first = polls[0]
	}
}

func TestTestPollingForever(t *testing.T) {
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		if r.ID() == 0 {
			q, err := c.Irecv(nil, 1, 4)
			if err != nil {
				return err
			}
			for {
				ok, err := q.Test()
				if err != nil || ok {
					return err
				}
			}
		}
		_, err := c.RecvInt64(0, 0)
		return err
	})
	var d *DeadlockError
	if !errors.As(err, &d) || !strings.Contains(err.Error(), "rank 0: MPI_Test (polling) waits for a message from rank 1") {
		t.Fatalf("got %v", err)
	}
}

func TestManyTags(t *testing.T) {
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		for tag := range 5000 {
			if r.ID() == 0 {
				if err := c.SendInt64(int64(tag), 1, tag); err != nil {
					return err
				}
				continue
			}
			if v, err := c.RecvInt64(0, tag); err != nil || v != int64(tag) {
				return fmt.Errorf("tag %d: %v %v", tag, v, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.ranks[1].queues); n > maxQueues+1 {
		t.Errorf("%d queues kept", n)
	}
}

func TestGoexit(t *testing.T) {
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		if r.ID() == 1 {
			runtime.Goexit()
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "rank 1 called runtime.Goexit") {
		t.Fatalf("got %v", err)
	}
}

func TestLog(t *testing.T) {
	w, _ := New(Config{Ranks: 3, Log: true, Latency: Latency{Base: 2 * time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: Off}})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		if r.ID() == 2 {
			r.Sleep(time.Microsecond)
			if err := c.Send(make([]byte, 5), 0, 11); err != nil {
				return err
			}
		}
		if r.ID() == 0 {
			if err := c.Recv(make([]byte, 5), 2, 11); err != nil {
				return err
			}
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
	log := w.Log()
	// One message, then a 3-rank dissemination barrier: 2 rounds of 3.
	if int64(len(log)) != w.Messages() || len(log) != 7 {
		t.Fatalf("log has %d messages, Messages() = %d, want 7", len(log), w.Messages())
	}
	// Rank 1 enters the barrier at 0, rank 2 at 1 µs after its send, rank
	// 0 at 3 µs when the message arrives.
	want := Message{Src: 2, Dst: 0, Tag: 11, Bytes: 5, SendS: 1e-6, ArrivalS: 3e-6}
	if got := log[1]; got != want {
		t.Errorf("log[1] = %+v, want %+v", got, want)
	}
	if m := log[0]; m.Src != 1 || m.Dst != 2 || !m.Internal || m.SendS != 0 || m.ArrivalS != 2e-6 {
		t.Errorf("log[0] = %+v", m)
	}
	for i := 1; i < len(log); i++ {
		if log[i].SendS < log[i-1].SendS {
			t.Errorf("log not sorted at %d", i)
		}
	}
}

func TestRunTwice(t *testing.T) {
	w, _ := New(Config{Ranks: 2, Latency: exactNet})
	send := func(r *Rank) error {
		if r.ID() == 0 {
			return r.Comm().SendInt64(int64(r.ID()), 1, 0)
		}
		return nil
	}
	if err := w.Run(send); err != nil {
		t.Fatal(err)
	}
	// The message sent in the first Run is received in the second, and
	// virtual time carries over.
	err := w.Run(func(r *Rank) error {
		if r.ID() == 1 {
			if _, err := r.Comm().RecvInt64(0, 0); err != nil {
				return err
			}
			if r.TrueNow() != 1e-6 {
				return fmt.Errorf("time %v", r.TrueNow())
			}
			// A nested Run is refused.
			if err := w.Run(send); err == nil {
				return errors.New("nested Run succeeded")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Above Config.EagerLimit a blocking Send waits for its receive: two ranks
// that both Send before they Recv deadlock, as they can on a real machine;
// below it, or without a limit, the sends are buffered.
func TestEagerLimitRendezvous(t *testing.T) {
	exchange := func(limit, size int) error {
		w, err := New(Config{Ranks: 2, Seed: 1, EagerLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return w.Run(func(r *Rank) error {
			c := r.Comm()
			peer := 1 - c.Rank()
			if err := c.Send(make([]byte, size), peer, 3); err != nil {
				return err
			}
			return c.Recv(make([]byte, size), peer, 3)
		})
	}
	if err := exchange(0, 1<<20); err != nil {
		t.Errorf("no limit, 1 MiB: %v", err)
	}
	if err := exchange(4096, 4096); err != nil {
		t.Errorf("4 KiB limit, 4 KiB messages: %v", err)
	}
	err := exchange(4096, 8192)
	var d *DeadlockError
	if !errors.As(err, &d) {
		t.Fatalf("4 KiB limit, 8 KiB messages: %v, want *DeadlockError", err)
	}
	want := "rank 0: MPI_Send of 8192 bytes (rendezvous, above Config.EagerLimit) to rank 1 (world rank 1) in the world waits for the matching receive"
	if !strings.Contains(err.Error(), want) || len(d.Blocked) != 2 {
		t.Errorf("deadlock report lacks %q or has not 2 ranks:\n%v", want, err)
	}
}

// A rendezvous Send completes when the late receiver posts its receive;
// the data arrives intact and only then; a receive posted first lets the
// Send go on at once; Irecv acknowledges too; and it is all deterministic.
func TestRendezvousTiming(t *testing.T) {
	run := func() (sendDone, recvDone, early float64) {
		w, err := New(Config{Ranks: 2, Seed: 9, EagerLimit: 1024, Latency: Latency{SpikeProb: Off}})
		if err != nil {
			t.Fatal(err)
		}
		err = w.Run(func(r *Rank) error {
			c := r.Comm()
			big := make([]byte, 4096)
			if c.Rank() == 0 {
				for i := range big {
					big[i] = byte(i)
				}
				if err := c.Send(big, 1, 1); err != nil { // receiver is 1 ms late
					return err
				}
				sendDone = r.TrueNow()
				// Receiver posted an Irecv first: no waiting beyond injection.
				r.Sleep(2 * time.Millisecond)
				t0 := r.TrueNow()
				if err := c.Send(big, 1, 2); err != nil {
					return err
				}
				early = r.TrueNow() - t0
				// An Irecv posted after the message arrived acknowledges too.
				return c.Send(big, 1, 3)
			}
			r.Sleep(time.Millisecond)
			if err := c.Recv(big, 0, 1); err != nil {
				return err
			}
			recvDone = r.TrueNow()
			for i := range big {
				if big[i] != byte(i) {
					return fmt.Errorf("byte %d = %d", i, big[i])
				}
			}
			q, err := c.Irecv(big, 0, 2)
			if err != nil {
				return err
			}
			if err := q.Wait(); err != nil {
				return err
			}
			r.Sleep(5 * time.Millisecond)
			q, err = c.Irecv(big, 0, 3)
			if err != nil {
				return err
			}
			return q.Wait()
		})
		if err != nil {
			t.Fatal(err)
		}
		return sendDone, recvDone, early
	}
	s, rc, e := run()
	if s < 1e-3 || s > 1.1e-3 {
		t.Errorf("rendezvous Send returned at %g s, want just after the receive posted at 1 ms", s)
	}
	if rc < 1e-3 || rc > 1.1e-3 {
		t.Errorf("Recv completed at %g s, want just after 1 ms (the data leaves when it is posted)", rc)
	}
	if e > 50e-6 {
		t.Errorf("Send to a posted receive took %g s, want only its injection", e)
	}
	if s2, rc2, e2 := run(); s2 != s || rc2 != rc || e2 != e {
		t.Errorf("not deterministic: %g %g %g then %g %g %g", s, rc, e, s2, rc2, e2)
	}
}

// unexpected returns the number of messages waiting in r's mailbox for a
// receive.
func unexpected(r *Rank) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.queues {
		n += len(q.msgs) - q.mhead
	}
	return n
}

// The virtual times of a rendezvous do not depend on which rank reaches
// the matching point first in real time: the receive posted before the
// send (in real time) and after it give the same times.
func TestRendezvousIndependentOfRealTimeOrder(t *testing.T) {
	run := func(receiverFirst bool) (send, recv float64) {
		w, err := New(Config{Ranks: 2, Seed: 4, EagerLimit: 16})
		if err != nil {
			t.Fatal(err)
		}
		posted := make(chan struct{})
		err = w.Run(func(r *Rank) error {
			c := r.Comm()
			buf := make([]byte, 64)
			if c.Rank() == 0 {
				if receiverFirst {
					<-posted // real time: the receive is already posted
				}
				err := c.Send(buf, 1, 5)
				send = r.TrueNow()
				return err
			}
			r.Sleep(300 * time.Microsecond) // virtual: the receiver is late
			if !receiverFirst {
				// Real time: wait until the send sits in this rank's
				// mailbox as an unexpected message.
				for unexpected(r) == 0 {
					runtime.Gosched()
				}
			}
			q, err := c.Irecv(buf, 0, 5)
			if receiverFirst {
				close(posted)
			}
			if err != nil {
				return err
			}
			err = q.Wait()
			recv = r.TrueNow()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return send, recv
	}
	s1, r1 := run(true)
	s2, r2 := run(false)
	if s1 != s2 || r1 != r2 {
		t.Errorf("receive first: send done %g, receive done %g; send first: %g, %g", s1, r1, s2, r2)
	}
	if s1 < 300e-6 || r1 < 300e-6 {
		t.Errorf("send done %g, receive done %g: both must wait for the receive posted at 300 µs", s1, r1)
	}
}
