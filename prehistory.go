package reprobench

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// Prehistory is the level of the prehistory design factor: how many empty
// one-way messages each even rank sends to the rank after it before an
// experiment's measured observations (after its warm-up).
//
// Why it exists: a one-way message can leave hidden per-peer state in the
// transport (a ring buffer's read and write positions, a credit count, a
// connection's sequence number) that a later loop of small messages runs
// faster or slower in, for a whole mpirun. The engine's own traffic
// outside the observations is meant to leave such state alone; this
// factor moves it on purpose, so that a user can measure how sensitive a
// result is to it. The engine knows nothing of any library's state: it
// only sends the messages.
//
// The zero value is none. The messages accumulate over the experiments of
// one mpirun, as any traffic does; the count recorded per row
// (rawdata.CovariatePrehistory) is the one sent before that experiment.
type Prehistory struct {
	// Random draws each experiment's count in each mpirun from the run's
	// seed (Draw), uniformly on [0, Max].
	Random bool
	// Max is Random's largest count; 0 means 3.
	Max int
	// Msgs is the count sent: the level's N, or Random's drawn count once
	// FromDesign (or the caller) has called Draw.
	Msgs int
}

// defaultPrehistoryMax is the largest count "random" draws: small, so
// that in a campaign of 10-20 mpiruns each count recurs and the analysis
// can tell whether the count explains a split of the mpiruns into modes
// (analysis.Modes); "random:MAX" widens it.
const defaultPrehistoryMax = 3

// ParsePrehistory parses a level: "none" (or ""), a count N ≥ 0,
// "random", or "random:MAX" with MAX ≥ 1.
func ParsePrehistory(s string) (Prehistory, error) {
	switch {
	case s == "" || s == "none":
		return Prehistory{}, nil
	case s == "random":
		return Prehistory{Random: true}, nil
	case strings.HasPrefix(s, "random:"):
		m, err := strconv.Atoi(s[len("random:"):])
		if err != nil || m < 1 {
			return Prehistory{}, fmt.Errorf("prehistory %q: want random:MAX with an integer MAX ≥ 1", s)
		}
		return Prehistory{Random: true, Max: m}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return Prehistory{}, fmt.Errorf("prehistory %q: want none, a count N ≥ 0, random or random:MAX", s)
	}
	return Prehistory{Msgs: n}, nil
}

// String returns the level as ParsePrehistory reads it: "none", "N",
// "random" or "random:MAX".
func (p Prehistory) String() string {
	switch {
	case p.Random && (p.Max == 0 || p.Max == defaultPrehistoryMax):
		return "random"
	case p.Random:
		return "random:" + strconv.Itoa(p.Max)
	case p.Msgs == 0:
		return "none"
	}
	return strconv.Itoa(p.Msgs)
}

// None reports whether the level is none: nothing is sent, and the raw
// rows' prehistory_msgs cell is empty.
func (p Prehistory) None() bool { return !p.Random && p.Msgs == 0 }

// Draw returns p with Msgs set: for Random, a count uniform on [0, Max]
// drawn from the run's seed, the mpirun and the experiment number, so
// that each experiment of each mpirun gets its own count and a rerun with
// the same seed the same one; other levels are returned as they are.
func (p Prehistory) Draw(seed uint64, mpirun, exp int) Prehistory {
	if !p.Random {
		return p
	}
	hi := p.Max
	if hi <= 0 {
		hi = defaultPrehistoryMax
	}
	r := rand.New(rand.NewPCG(seed^0x70726568697374, uint64(mpirun)<<32^uint64(uint32(exp))))
	p.Msgs = r.IntN(hi + 1)
	return p
}

// prehistoryMessages returns the messages prehistory sends on p ranks:
// msgs from each even rank that has a rank after it.
func prehistoryMessages(p, msgs int) int64 { return int64(p/2) * int64(msgs) }

// prehistory sends msgs empty messages from each even rank r to rank r+1
// (tag mpi.TagPrehistory), one way; a last even rank without a neighbour
// sends nothing. Every rank calls it.
func prehistory(c mpi.Comm, msgs int) error {
	me, p := c.Rank(), c.Size()
	for range msgs {
		var err error
		switch {
		case me%2 == 0 && me+1 < p:
			err = c.Send(nil, me+1, mpi.TagPrehistory)
		case me%2 == 1:
			err = c.Recv(nil, me-1, mpi.TagPrehistory)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
