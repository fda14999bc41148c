//go:build !cgo || nompi

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "slowmode: this build has no MPI (build with cgo, without -tags nompi)")
	os.Exit(2)
}
