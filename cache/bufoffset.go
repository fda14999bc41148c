package cache

import (
	"os"
	"unsafe"
)

// pageSize is the size in bytes of the memory pages that buffer offsets
// are measured from (os.Getpagesize).
var pageSize = os.Getpagesize()

// pageAligned returns n bytes of fresh memory that start offset bytes
// after a page boundary (offset modulo pageSize). The slice is cut from a
// larger allocation, which stays alive as long as the slice does.
func pageAligned(n, offset int) []byte {
	offset %= pageSize
	raw := make([]byte, n+offset+pageSize)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(raw))) % uintptr(pageSize)); r != 0 {
		skip = pageSize - r
	}
	return raw[skip+offset : skip+offset+n : skip+offset+n]
}

// pageOffset returns the offset in bytes of p's first byte from the page
// boundary before it (0 for an empty p).
func pageOffset(p []byte) int {
	if len(p) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.SliceData(p))) % uintptr(pageSize))
}
