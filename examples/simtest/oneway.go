package main

import (
	"fmt"
	"slices"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// tagData is the tag of the measured messages (below clocksync's tags and
// mpi.TagInternal).
const tagData = 7

// OneWay is the benchmark under test, ordinary code written against
// mpi.Comm and timing.Clock: n times, after a barrier, rank 0 reads clk and
// sends size bytes to rank 1, which reads clk when the message has arrived.
// It returns on rank 0 the median of receive − send time in seconds (0 on
// the other ranks).
//
// The two timestamps come from different processes, so the result means
// something only if clk is a synchronized global clock (a
// *clocksync.GlobalClock is a timing.Clock): with raw clocks it is off by
// the clocks' offset. The tests show both.
func OneWay(c mpi.Comm, clk timing.Clock, size, n int) (float64, error) {
	if c.Size() < 2 || n < 1 {
		return 0, fmt.Errorf("oneway: need ≥ 2 ranks and n ≥ 1")
	}
	buf := make([]byte, size)
	stamps := make([]timing.Ticks, n) // send times on rank 0, receive times on rank 1
	for i := range n {
		if err := c.Barrier(); err != nil {
			return 0, err
		}
		switch c.Rank() {
		case 0:
			stamps[i] = clk.Now()
			if err := c.Send(buf, 1, tagData); err != nil {
				return 0, err
			}
		case 1:
			if err := c.Recv(buf, 0, tagData); err != nil {
				return 0, err
			}
			stamps[i] = clk.Now()
		}
	}
	// Rank 1 hands its receive times to rank 0.
	switch c.Rank() {
	case 1:
		return 0, mpi.Send(c, stamps, 0, tagData)
	case 0:
		recv := make([]timing.Ticks, n)
		if err := mpi.Recv(c, recv, 1, tagData); err != nil {
			return 0, err
		}
		lat := make([]float64, n)
		for i := range lat {
			lat[i] = clk.Freq().Seconds(recv[i] - stamps[i])
		}
		slices.Sort(lat)
		return lat[n/2], nil
	}
	return 0, nil
}
