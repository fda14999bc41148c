package engine

import "github.com/reprobench/reprobench/mpi"

// Levelling the fast-box rings (issue 30).
//
// Open MPI's shared-memory transport (btl/vader, Open MPI 4.1) passes a
// small message from one rank to another through a ring of 32-byte slots
// in a 4 KiB buffer, the sender's fast box for that peer
// (mca_btl_vader_fbox_sendi): the first 32 bytes hold the reader's
// position, so the ring has 127 slots; a message takes its match header,
// its payload and an 8-byte fast-box header, rounded up to whole slots; a
// message that does not fit before the end marks the rest to be skipped
// and starts again at the first slot, as the next one does after a message
// that ends exactly there. Each direction has its own ring.
//
// What decides the speed of a timed loop of small messages is the offset
// d between the two directions' rings, in slots: a lone empty message one
// way adds one to it, the same traffic both ways leaves it alone. Measured
// here (docs/measured.md, "What the fast-box state is"; bench/fidelity/
// ring.c, one mpirun, 2026-11-28), a loop of barrier and 8-byte allreduce
// read 1.00x at d = 0 and 2, rising to 1.13x at d = 62, and 1.49x at d = 1,
// falling to 1.12x at d = 63: the share of the ring in which the two
// messages of one iteration stand at slots of different parity. A plain
// program's traffic is the same both ways and keeps d at 0 (the C loop,
// OSU); reprobench run's set-up broadcasts its seed and run id from rank
// 0, traffic one way, and leaves d wherever that puts it.
//
// alignLevel takes both rings to the same slot whatever d was: the two
// ranks play alignLevelWord as a ping-pong, one message each way per
// letter, of that letter's slots. The word is synchronizing for the ring:
// from any of the 127 slots, a ring ends at slot 9 after it (the test
// checks it against the arithmetic above). The ping-pong keeps each
// message the only one in its ring, so a ring is never full and the skip
// rule applies as modelled; its letters take at most 8 slots (at most 216
// bytes of payload, under btl_vader_max_inline_send's 256). Measured in
// one mpirun, the loop read 0.86-1.09x of a level start after it, whatever
// the offset before (up to 1.97x), in 9 of 10 mpiruns. 568 round trips:
// per levelling 0.61-1.94 ms here with Open MPI (median 0.68 ms) and
// 0.86-1.29 ms with MPICH (median 1.04 ms), the middle of three timings of
// 20 levellings in each of 10 mpiruns of a C loop; the probe levels twice.
// With MPICH, or without fast boxes, they are just round trips.
//
// The word leaves the sender's copy of the reader's position, which the
// sender re-reads once per lap, at slot 120 or 121, where a fresh ring
// has it at slot 1 (bench/fidelity/fbox_readpos.py models it). Tails that
// reset it to 127, or to 1, read the same against osu_allreduce (1.069x
// and 1.069x, 1.060x without; 300 rotating rounds, 2026-11-28,
// docs/measured.md), so the levelling stops at the offset.

// alignLevelWord is the synchronizing word of the fast box's ring: one
// decimal digit per message, the slots it takes (1-8).
const alignLevelWord = "8888888888888888178888888888888888178888888888888888178888888888" +
	"8888881788888888888888881788888888888888881788888888888888881788" +
	"8888888888888826881888888888888878888888888888888288688188888888" +
	"8888878888888888888888288688188888888888887888888888888888828868" +
	"8188888888888887888888888888888848848888388888888888588828888888" +
	"8888868818888888888888788888888888888884888888488883888888888885" +
	"8882888888888888688188888888888887888888888888888888888887888888" +
	"8188888886888888882888888588888888838888848888888888488883888888" +
	"88888588828888888888886881888888888888878888888888888888"

// alignLevelPayload is the payload of a message that takes slots 32-byte
// slots of the fast box: 0 for one slot (16 + 8 header bytes), else 16
// bytes short of the slots' bytes after the headers, so a header up to 16
// bytes larger or smaller takes as many slots.
func alignLevelPayload(slots int) int {
	if slots <= 1 {
		return 0
	}
	return 32*slots - 16 - 8 - 16
}

// alignLevel levels the fast-box rings of the first two ranks (package
// doc above): a ping-pong of alignLevelWord's messages with mpi.TagAlign.
// Every rank calls it; the others return at once.
func alignLevel(c mpi.Comm) error {
	me := c.Rank()
	if c.Size() < 2 || me > 1 {
		return nil
	}
	buf := make([]byte, alignLevelPayload(8))
	for i := range len(alignLevelWord) {
		m := buf[:alignLevelPayload(int(alignLevelWord[i]-'0'))]
		var err error
		if me == 0 {
			if err = c.Send(m, 1, mpi.TagAlign); err == nil {
				err = c.Recv(m, 1, mpi.TagAlign)
			}
		} else {
			if err = c.Recv(m, 0, mpi.TagAlign); err == nil {
				err = c.Send(m, 0, mpi.TagAlign)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
