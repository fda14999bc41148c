package cache

import "testing"

// TestNewBuffersAt: the first slot's buffers start the asked offset after
// a page boundary; every slot of the cycle mode keeps it modulo 64.
func TestNewBuffersAt(t *testing.T) {
	for _, off := range []int{0, 1, 3, 64, 100, 4095} {
		b := NewBuffersAt(Cycle, 24, 96, 4, 0, 1, off)
		if pageOffset(b.Send) != off || pageOffset(b.Recv) != off {
			t.Errorf("offset %d: send at %d, recv at %d", off, pageOffset(b.Send), pageOffset(b.Recv))
		}
		for i := range 8 {
			b.Before(i)
			if pageOffset(b.Send)%64 != off%64 || len(b.Send) != 24 || len(b.Recv) != 96 {
				t.Errorf("offset %d, slot %d: send at %d (len %d)", off, i, pageOffset(b.Send), len(b.Send))
			}
		}
	}
}
