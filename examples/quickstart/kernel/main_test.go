package main

import (
	"io"
	"os"
	"regexp"
	"testing"
)

// TestKernel runs the program and checks what it prints.
func TestKernel(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	re := regexp.MustCompile(`^daxpy, 65536 elements: median [0-9.]+[µm]?s, 95% CI \[[0-9.]+, [0-9.]+\] µs, clock (tsc|tsc_lfence|monotonic)\n`)
	if !re.Match(out) {
		t.Errorf("output:\n%s", out)
	}
}
