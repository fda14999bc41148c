package reprobench

// SetPerRankChunkBytes sets the bound on the per-rank timestamps rank 0
// holds at once and returns the previous one (rows, engine.go).
func SetPerRankChunkBytes(n int) int {
	old := perRankChunkBytes
	perRankChunkBytes = n
	return old
}
