package cache_test

import (
	"testing"

	"github.com/reprobench/reprobench/cache"
)

func TestBuffers(t *testing.T) {
	b := cache.NewBuffers(cache.Cycle, 8, 16, 4, 0, 1)
	seen := map[*byte]bool{}
	for i := range 8 {
		b.Before(i)
		if len(b.Send) != 8 || len(b.Recv) != 16 {
			t.Fatalf("buffer sizes %d, %d", len(b.Send), len(b.Recv))
		}
		seen[&b.Send[0]] = true
	}
	if len(seen) != 4 {
		t.Errorf("cycle over 4 slots visited %d offsets", len(seen))
	}
	r := cache.NewBuffers(cache.Random, 8, 8, 16, 0, 1)
	seen = map[*byte]bool{}
	for i := range 100 {
		r.Before(i)
		seen[&r.Send[0]] = true
	}
	if len(seen) < 8 {
		t.Errorf("random offsets: only %d distinct of 16 slots in 100 draws", len(seen))
	}
	c := cache.NewBuffers(cache.Cold, 8, 8, 0, 1<<20, 1)
	if a := testing.AllocsPerRun(10, func() { c.Before(0) }); a != 0 {
		t.Errorf("cold flush allocates %v times", a)
	}
	w := cache.NewBuffers(cache.Warm, 8, 8, 16, 0, 1)
	p := &w.Send[0]
	w.Before(1)
	if &w.Send[0] != p {
		t.Error("warm buffers moved")
	}
}
