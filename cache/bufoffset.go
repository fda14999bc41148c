package cache

import (
	"os"
	"unsafe"
)

// PageSize is the size in bytes of the memory pages that buffer offsets
// are measured from (os.Getpagesize).
var PageSize = os.Getpagesize()

// pageAligned returns n bytes of fresh memory that start offset bytes
// after a page boundary (offset modulo PageSize). The slice is cut from a
// larger allocation, which stays alive as long as the slice does.
func pageAligned(n, offset int) []byte {
	offset %= PageSize
	raw := make([]byte, n+offset+PageSize)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % uintptr(PageSize)); r != 0 {
		skip = PageSize - r
	}
	return raw[skip+offset : skip+offset+n : skip+offset+n]
}

// PageOffset returns the offset in bytes of p's first byte from the page
// boundary before it (0 for an empty p).
func PageOffset(p []byte) int {
	if len(p) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(p))) % uintptr(PageSize))
}
