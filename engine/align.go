package engine

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// The alignment probe (issue 30).
//
// Open MPI's shared-memory transport (btl/vader) passes small messages
// through a per-peer ring of 32-byte slots, the fast box, one per
// direction, and the speed of a loop of small messages depends on the
// offset between the two directions' rings, which every message one way
// changes (alignlevel.go). A plain C loop, which sends nothing one way
// before its loop, starts level; a program that exchanges configuration
// first starts wherever its history puts it, up to 1.5x slower for the
// whole mpirun. That is a factor nobody chose, different from one version
// of a program to the next.
//
// The probe takes it out of chance. After the warm-up it levels the rings
// (alignLevel) and times AlignProbe observations of a reference loop
// (alignReference: MPI_Barrier, then an 8-byte MPI_Allreduce) as they are
// (A), moves the ring by one empty message from the first to the second
// rank (mpi.TagAlign) and times as many (B), and does so twice, A B A B, so
// that a drift of the machine over the probe (seen here: 1.4 µs falling to
// 0.9 µs over the first 10 000 calls after MPI_Init) favours neither. One
// allreduce then gives every observation's largest duration over the
// ranks, the measured statistic, and the rings are levelled again for the
// measured observations (Kept rawdata.AlignLevel): what the probe records
// is how much this machine and library care (with MPICH, whose
// shared-memory queue does not show this, A and B read alike).
//
// Until 2026-11-28 the probe kept whichever of A and B read faster, after
// three moves (B) or four (A), on a model of two states that one message
// flips. That fixes the parity of the offset but not the offset: a run
// whose set-up left it at 40 slots stayed about 4 % slow, and a probe that
// misjudged two states within its noise (23 of 200 runs from a level
// start) left it at 3, the slow parity. Between experiments the engine
// gathers each one's timestamps at rank 0, traffic one way, and the
// offset moves on: in a design of 40 identical experiments the later ones
// read up to 1.26x the first (median over 12 mpiruns by position, default
// flags, 2026-11-28); levelled, 1.00-1.09x. Against osu_allreduce, one
// experiment per mpirun, levelling read the same: 1.056 [1.040, 1.085]
// where the probe before it read 1.060 [1.026, 1.090] (300 rotating
// rounds, paired; docs/measured.md).
//
// The probe times the reference loop, not the experiment's own call: the
// reference's fast alignment is the one a plain program starts in (the C
// loop and OSU send nothing one way before their loops), so every call is
// then measured in the alignment a C benchmark of that call has, not in
// whichever alignment happens to suit that call best. Measured here
// (2026-11-27, Open MPI), timing the call itself put --runtime osu at
// 0.909, 0.927 and 0.960x osu_iallreduce's pure time (three runs of 30
// pairs) and 0.944x in 40 alternating rounds, where the reference loop
// read 1.010x (unpaired Hodges-Lehmann; docs/measured.md).
//
// With window.RuntimeIMB the probe does not level the rings and keeps the
// slower of A and B instead (B only when it is at least alignGain slower),
// as before 2026-11-28: the value of runtime imb is
// what IMB-MPI1 prints, and IMB's own set-up leaves Open MPI's fast box in
// the slow alignment. Measured here (2026-11-27, 6 mpiruns each, 8 B
// MPI_Allreduce): IMB-MPI1 read 0.65-0.77 µs where osu_allreduce, the same
// loop, read 0.52-0.64 µs, and with the fast boxes off
// (btl_vader_fbox_max=0) the two read alike (1.05-1.52 and 1.13-1.57 µs).
// Keeping the faster alignment put --runtime imb at 0.87x IMB's Allreduce
// and 0.93x its PingPong (30 pairs), keeping the slower at 0.94-0.99x and
// 1.00-1.02x (two runs of 30 pairs; docs/measured.md). Where IMB's set-up
// leaves the offset is not known, so the probe keeps the slower parity
// from wherever the run's history put it, which is what those runs
// measured. OSU (runtime osu) and the plain C loop start level, as the
// default leaves them.

// alignReference returns the probe's reference observation, MPI_Barrier
// then one 8-byte MPI_Allreduce (one float64, sum), and room for k of its
// timestamps.
func alignReference(k int) (*mpi.Observation, []int64, []int64) {
	buf := make([]byte, 16)
	ref := &mpi.Observation{Call: mpi.CallAllreduce, Send: buf[:8], Recv: buf[8:], Count: 1, Type: mpi.Float64,
		Op: mpi.Sum, Sync: mpi.SyncBarrier}
	return ref, make([]int64, k), make([]int64, k)
}

// alignGain is how much slower (fraction of the median) the moved
// alignment must be for runtime imb's probe to keep it: less is noise
// between two blocks of the same state (the two blocks of one state differ
// by 0.5-3 % here), more is the fast box (10-70 %).
const alignGain = 0.03

// alignMaxBytes is the largest message the probe runs for: Open MPI's fast
// box takes a message of at most a quarter of its 4 KiB, larger ones never
// enter the ring, and their own time dwarfs the ring's 0.4 µs.
const alignMaxBytes = 1024

// alignBlock returns the observations per block of ex's probe, 0 for none:
// ex.AlignProbe, but at most an eighth of the measured observations (the
// four blocks cost at most half of them), and at least 10 (so at most 40
// observations more than that on a short experiment).
func alignBlock(ex *Experiment, p int) int {
	if ex.AlignProbe <= 0 || p < 2 || ex.MsizeBytes > alignMaxBytes {
		return 0
	}
	return min(ex.AlignProbe, max(ex.Nrep/8, 10))
}

// alignProbe runs the probe of ex (alignBlock observations per block of
// the reference loop, alignReference) and returns what it saw. Every rank
// calls it.
func (e *Engine) alignProbe(ex *Experiment) (*rawdata.AlignProbe, error) {
	c := e.Comm
	k := alignBlock(ex, c.Size())
	level := ex.Runtime != window.RuntimeIMB
	if level {
		if err := alignLevel(c); err != nil {
			return nil, fmt.Errorf("levelling the rings: %w", err)
		}
	}
	ref, starts, ends := alignReference(k)
	mine := make([]float64, 4*k) // each block's durations, k per block
	move := func() error {
		switch c.Rank() {
		case 0:
			return c.Send(nil, 1, mpi.TagAlign)
		case 1:
			return c.Recv(nil, 0, mpi.TagAlign)
		}
		return nil
	}
	for b := range 4 {
		if b > 0 {
			if err := move(); err != nil {
				return nil, fmt.Errorf("moving the ring: %w", err)
			}
		}
		if err := mpi.ObserveBatch(c, ref, e.Clock, nil, starts, ends); err != nil {
			return nil, err
		}
		for i := range k {
			mine[b*k+i] = e.Clock.Seconds(ends[i] - starts[i])
		}
	}
	all := make([]float64, len(mine))
	if err := mpi.Allreduce(c, mine, all, mpi.Max); err != nil {
		return nil, err
	}
	med := func(b int) float64 { return median(all[b*k : (b+1)*k]) } // nbc.go
	ap := &rawdata.AlignProbe{Observations: k, MedianAsIsS: (med(0) + med(2)) / 2, MedianMovedS: (med(1) + med(3)) / 2,
		Kept: rawdata.AlignLevel}
	if level {
		if err := alignLevel(c); err != nil {
			return nil, fmt.Errorf("levelling the rings: %w", err)
		}
		return ap, nil
	}
	ap.Kept = rawdata.AlignSlower
	ap.Moved = ap.MedianMovedS > (1+alignGain)*ap.MedianAsIsS
	if !ap.Moved {
		if err := move(); err != nil {
			return nil, fmt.Errorf("moving the ring back: %w", err)
		}
	}
	return ap, nil
}
