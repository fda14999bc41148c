package engine

// The fast box's ring as Open MPI 4.1's btl/vader keeps it
// (mca_btl_vader_fbox_sendi; alignlevel.go), for the tests: 127 slots of
// 32 bytes, numbered 1-127 after the 32 bytes that hold the reader's
// position.

// FboxNext returns where a ring's next message starts after one of slots
// slots was written with the ring at pos, the reader having read all
// before: a message that does not fit before the end starts at slot 1,
// and one that ends exactly at the end leaves the ring at slot 1.
func FboxNext(pos, slots int) int {
	if 128-pos < slots {
		pos = 1
	}
	pos += slots
	if pos == 128 {
		pos = 1
	}
	return pos
}

// FboxSlots returns the slots a message of payload bytes takes with a
// match header of hdr bytes (ob1's is 16) and the fast box's 8-byte one.
func FboxSlots(hdr, payload int) int { return (hdr + payload + 8 + 31) / 32 }

// AlignLevelWord and AlignLevelPayload are alignlevel.go's word and
// message sizes.
var (
	AlignLevelWord    = alignLevelWord
	AlignLevelPayload = alignLevelPayload
)
