package provenance

// BeginBatch samples the CPU the calling thread is on just before a batch
// of measured observations (Sample), and remembers it for EndBatch. Call
// it outside the timed part: it reads a file (a few µs) unless simulated.
func (b *Binding) BeginBatch() {
	if b != nil {
		b.batchCPU, b.inBatch = b.sample(), true
	}
}

// EndBatch samples the CPU just after the batch BeginBatch began, counts
// the batch (Rank.Batches), and counts it as moved (Rank.MovedBatches)
// when both readings succeeded and differ: the thread migrated while the
// batch was timed. An EndBatch without its BeginBatch is a sample only.
func (b *Binding) EndBatch() {
	if b == nil {
		return
	}
	cpu := b.sample()
	if !b.inBatch {
		return
	}
	b.batches++
	if b.batchCPU >= 0 && cpu >= 0 && cpu != b.batchCPU {
		b.moved++
	}
	b.inBatch = false
}
