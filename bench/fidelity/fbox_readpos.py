#!/usr/bin/env python3
"""Where Open MPI's fast-box sender re-reads the reader's position (issue 30).

A model of mca_btl_vader_fbox_sendi (Open MPI 4.1, opal/mca/btl/vader/
btl_vader_fbox.h) for one ring, the reader having read every message before
the next is sent (a ping-pong, or a loop of barrier and 8-byte allreduce).
Besides the slot it writes next, the sender keeps a copy of the reader's
position and reads the reader's own (the ring's first 32 bytes) only when
that copy says a message does not fit. In a loop of one-slot messages that
happens once per lap, at the same slot lap after lap: the slot of the last
such read. This script prints that slot after the histories that
docs/measured.md ("The reader's position and the binding's loop") compares:
a fresh ring (a plain program, OSU), the levelling word of
engine/alignlevel.go, 100 Sendrecv of 2 slots, and the word with the two
tails the rounds tried.

    python3 bench/fidelity/fbox_readpos.py
"""
import os
import re

F = 4096  # btl_vader_fbox_size
A = 32    # MCA_BTL_VADER_FBOX_ALIGNMENT: a slot; the first holds the reader's position


class Ring:
    def __init__(self):
        self.end, self.hbs = A, 0  # the sender's next offset and its high bit
        self.cs, self.chb = A, 0   # its copy of the reader's position
        self.reads = []            # slots at which it read the reader's position

    def send(self, slots):
        rs, rhb = self.end, self.hbs  # the reader has read everything
        hbs, end, size = self.hbs, self.end, slots * A

        def free(s, e, match):  # BUFFER_FREE
            return s - e if s + (0 if match else 1) > e else F - e
        hbm = self.chb == hbs
        fr = free(self.cs, end, hbm)
        if fr < size:
            self.cs, self.chb = rs, rhb
            self.reads.append(end // A)
            hbm = self.chb == hbs
            fr = free(self.cs, end, hbm)
            if 0 < fr < size and self.cs <= end:  # skip to the first slot
                end, hbs = A, hbs ^ 1
                fr = free(self.cs, end, not hbm)
            if fr < size:
                raise RuntimeError("full: the message would go through the FIFO")
        end += size
        if end == F:
            end, hbs = A, hbs ^ 1
        self.end, self.hbs = end, hbs


def loop_reads(msgs):
    """The slots of the reads during 400 one-slot messages after msgs."""
    r = Ring()
    for m in msgs:
        r.send(m)
    n = len(r.reads)
    for _ in range(400):
        r.send(1)
    return sorted(set(r.reads[n:])), r.end // A


def main():
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "engine", "alignlevel.go")).read()
    decl = re.search(r"const alignLevelWord = (.*?)\n\n", src, re.S).group(1)
    word = [int(c) for c in "".join(re.findall(r'"([0-9]*)"', decl))]
    t127 = [6] + [8] * 14 + [2]
    t1 = [int(c) for c in "5888888888888888888888888888888718888888888888868288888888888885883888888888888"
          "4888488888888888388885888888888828888868888888881888888788888888888888888888888788888881888"
          "8888688888888288888858888888883888884888888888848888388888888888588828888888888886881888888"
          "888888878888888888888888"]
    warm = [1] * 2000  # a warm-up of 1000 barrier + allreduce: two one-slot messages each way per call
    for name, msgs in [("fresh ring", warm), ("word", warm + word), ("100 Sendrecv of 2 slots", warm + [2] * 100),
                       ("word + tail to 127", warm + word + t127), ("word + both tails", warm + word + t127 + t1),
                       ("41 one way, then the word", warm + [1] * 41 + word)]:
        reads, _ = loop_reads(msgs)
        print(f"{name:28s} the sender reads the reader's position at slot {reads}")


if __name__ == "__main__":
    main()
