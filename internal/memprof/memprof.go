package memprof

import (
	"runtime"
	"strings"
)

// AllocatedUnder returns the bytes allocated so far by calls under (at
// any depth below) a function whose full name ends in suffix, e.g.
// ".rank0Close". Take it before and after the code measured: the
// difference is what that code allocated under the function.
func AllocatedUnder(suffix string) int64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	for {
		n, ok := runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
		recs = make([]runtime.MemProfileRecord, n+64)
	}
	var sum int64
	for _, r := range recs {
		fr := runtime.CallersFrames(r.Stack())
		for {
			f, more := fr.Next()
			if strings.HasSuffix(f.Function, suffix) {
				sum += r.AllocBytes
				break
			}
			if !more {
				break
			}
		}
	}
	return sum
}
