// Package a is the entry of calltrace's test module; its files a.go and
// b.go alternate along the path.
package a

import "example.com/mod/w"

// Sink receives rows.
type Sink interface{ Row() }

// Run is the entry: a.go, then b.go, then a.go (return 1), then w.go,
// then through the interface to w's writer.
func Run() {
	w.Check()
	helper()
	again()
	var s Sink = &w.Writer{}
	s.Row()
	after()
}

func again() {}

func after() {}
