//go:build tools

// This file pins the chosen dependencies in go.mod while the packages that use
// them are written concurrently (the tools.go pattern); it is never compiled.
// Remove it once every dependency is imported by real code.
package reprobench

import (
	_ "github.com/schollz/progressbar/v3"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/sys/unix"
	_ "gonum.org/v1/gonum/stat"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
)
