package clocksync

import (
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// TestTagsReserved: every tag of this package is in the block mpi reserves
// for it, so no user tag (below mpi.TagReserved) can match its messages.
func TestTagsReserved(t *testing.T) {
	for _, tag := range []int{tagPing, tagPong, tagExchange, tagReply, tagRTT, tagModels} {
		if tag < mpi.TagClockSync || tag >= mpi.TagClockSyncEnd {
			t.Errorf("tag %d outside [mpi.TagClockSync, mpi.TagClockSyncEnd) = [%d, %d)", tag, mpi.TagClockSync, mpi.TagClockSyncEnd)
		}
	}
}
