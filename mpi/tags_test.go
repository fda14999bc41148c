package mpi_test

import (
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// TestReservedTags: the Go-side tags of mpi and clocksync's lie in the
// reserved range [TagReserved, TagInternal), above every user tag.
func TestReservedTags(t *testing.T) {
	for name, tag := range map[string]int{"TagPingPong": mpi.TagPingPong, "TagDissemination": mpi.TagDissemination,
		"TagClockSync": mpi.TagClockSync, "TagClockSyncEnd-1": mpi.TagClockSyncEnd - 1} {
		if tag < mpi.TagReserved || tag >= mpi.TagInternal {
			t.Errorf("%s = %d outside the reserved range [%d, %d)", name, tag, mpi.TagReserved, mpi.TagInternal)
		}
	}
	if mpi.TagPingPong == mpi.TagDissemination || (mpi.TagPingPong >= mpi.TagClockSync && mpi.TagPingPong < mpi.TagClockSyncEnd) ||
		(mpi.TagDissemination >= mpi.TagClockSync && mpi.TagDissemination < mpi.TagClockSyncEnd) {
		t.Error("reserved tags overlap")
	}
}
