package provenance

import "testing"

// A batch counts as moved only when both of its readings succeeded and
// differ; an unreadable reading is no sample, and an EndBatch without its
// BeginBatch is a sample but no batch.
func TestBatchCounts(t *testing.T) {
	reads := []int{0, 0, 1, 2, -1, 2, 3, 3, 4}
	k := 0
	b := &Binding{last: -1, readCPU: func() (int, string) {
		c := reads[k]
		k++
		if c < 0 {
			return c, unavailable("fake")
		}
		return c, "fake"
	}}
	b.BeginBatch() // 0
	b.EndBatch()   // 0: not moved
	b.BeginBatch() // 1
	b.EndBatch()   // 2: moved
	b.BeginBatch() // unreadable
	b.EndBatch()   // 2: not moved (no beginning CPU)
	b.BeginBatch() // 3
	b.EndBatch()   // 3
	b.EndBatch()   // 4: no batch begun, a sample only
	if k != len(reads) {
		t.Fatalf("%d reads, want %d", k, len(reads))
	}
	if b.batches != 4 || b.moved != 1 || b.samples != 8 || b.moves != 4 {
		t.Errorf("batches %d, moved %d, samples %d, migrations %d; want 4, 1, 8, 4", b.batches, b.moved, b.samples, b.moves)
	}
}
