package main

import (
	"errors"
	"fmt"
	"testing"
)

// TestMessageSaysPrefixOnce: a library error wrapped by a command prints
// "reprobench: " once.
func TestMessageSaysPrefixOnce(t *testing.T) {
	err := fmt.Errorf("run: %w", errors.New("reprobench: experiment 3: no such call"))
	if got, want := message(err), "reprobench: run: experiment 3: no such call"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
