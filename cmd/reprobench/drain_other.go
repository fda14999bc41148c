//go:build !linux

package main

import "time"

// drainStderr is a no-op where the unread bytes of a pipe cannot be asked
// for (see drain_linux.go).
func drainStderr(time.Duration) {}
