package guidelines

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Size says how a side's message size follows from the guideline's size n
// (bytes of one rank's contribution to the left-hand side, the engine's
// msize_bytes) on p ranks.
type Size int

// The size mappings.
const (
	// SizeN is n itself.
	SizeN Size = iota
	// SizePN is p·n (e.g. MPI_Bcast(p·n) carries what MPI_Scatter(n)
	// distributes).
	SizePN
	// SizeElem is one element of the datatype, whatever n (MPI_Barrier ≤
	// MPI_Allreduce of one element: an allreduce of 0 elements need not
	// synchronize, and Open MPI returns at once).
	SizeElem
	// SizeZero is 0 bytes, whatever n (MPI_Barrier).
	SizeZero
)

var sizeNames = [...]string{"n", "p*n", "elem", "0"}

// String returns the size as written in a guideline: "n", "p*n", "elem" or "0".
func (s Size) String() string {
	if s < 0 || int(s) >= len(sizeNames) {
		return fmt.Sprintf("Size(%d)", int(s))
	}
	return sizeNames[s]
}

// parseSize accepts "n", "p*n" (or "pn", "p·n"), "elem" (or "1") and "0".
func parseSize(s string) (Size, error) {
	switch strings.ReplaceAll(strings.TrimSpace(s), " ", "") {
	case "n":
		return SizeN, nil
	case "p*n", "pn", "p·n", "n*p":
		return SizePN, nil
	case "elem", "1":
		return SizeElem, nil
	case "0":
		return SizeZero, nil
	}
	return 0, fmt.Errorf("guidelines: unknown size %q (want n, p*n, elem or 0)", s)
}

// Bytes returns the side's message size in bytes for guideline size n, p
// ranks and elements of elem bytes.
func (s Size) Bytes(n, p, elem int) int {
	switch s {
	case SizePN:
		return p * n
	case SizeElem:
		return elem
	case SizeZero:
		return 0
	}
	return n
}

// Side is one side of a guideline: a call, by the name the engine and the
// raw data use (mpi.Call's String, such as "MPI_Allreduce" or the mock-up
// "Reduce+Bcast"), and its message size.
type Side struct {
	Call string
	Size Size
}

// String returns "CALL(SIZE)".
func (s Side) String() string { return s.Call + "(" + s.Size.String() + ")" }

// Input says how the right-hand side's send buffer holds the left-hand
// side's input (for the check that both compute the same result; it does
// not change what is timed).
type Input int

// Inputs.
const (
	// InputSame: the same bytes (the mock-up may need padding after them).
	InputSame Input = iota
	// InputReplicated: p copies of the left-hand side's contribution, one
	// per destination (MPI_Allgather(n) ≤ MPI_Alltoall(n): an alltoall
	// whose blocks are all equal is an allgather).
	InputReplicated
)

// Output says which part of the right-hand side's result equals the
// left-hand side's.
type Output int

// Outputs.
const (
	// OutputSame: the same bytes, from the start of the receive buffer.
	OutputSame Output = iota
	// OutputRankBlock: the calling rank's block (bytes rank·L … (rank+1)·L
	// where L is the left-hand side's result length): MPI_Scatter(n) ≤
	// MPI_Bcast(p·n).
	OutputRankBlock
)

// Guideline is one self-consistent performance guideline (Hunold,
// Carpen-Amarie and Träff): the left-hand side should not be slower than
// the right-hand side, which does the same job.
type Guideline struct {
	Name     string // short identifier, e.g. "allreduce-reduce-bcast"
	Lhs, Rhs Side
	Input    Input
	Output   Output
}

// String returns the guideline as Parse reads it, e.g.
// "MPI_Scatter(n) <= MPI_Bcast(p*n); output=rank-block".
func (g Guideline) String() string {
	s := g.Lhs.String() + " <= " + g.Rhs.String()
	if g.Input == InputReplicated {
		s += "; input=replicated"
	}
	if g.Output == OutputRankBlock {
		s += "; output=rank-block"
	}
	return s
}

// Parse reads one guideline: "LHS(SIZE) <= RHS(SIZE)" followed by optional
// "; input=replicated" and "; output=rank-block". SIZE is n, p*n, elem or 0;
// calls are not checked here (the engine's vocabulary does that).
func Parse(name, text string) (Guideline, error) {
	g := Guideline{Name: strings.TrimSpace(name)}
	if g.Name == "" || strings.ContainsAny(g.Name, " \t,;:") {
		return g, fmt.Errorf("guidelines: name %q: want a non-empty word without spaces, commas, colons or semicolons", name)
	}
	parts := strings.Split(text, ";")
	lhs, rhs, ok := strings.Cut(parts[0], "<=")
	if !ok {
		if lhs, rhs, ok = strings.Cut(parts[0], "≤"); !ok {
			return g, fmt.Errorf("guidelines: %s: %q has no \"<=\"", g.Name, text)
		}
	}
	var err error
	if g.Lhs, err = parseSide(lhs); err != nil {
		return g, fmt.Errorf("guidelines: %s: left-hand side: %w", g.Name, err)
	}
	if g.Rhs, err = parseSide(rhs); err != nil {
		return g, fmt.Errorf("guidelines: %s: right-hand side: %w", g.Name, err)
	}
	for _, opt := range parts[1:] {
		switch strings.ReplaceAll(strings.TrimSpace(opt), " ", "") {
		case "input=replicated":
			g.Input = InputReplicated
		case "input=same":
			g.Input = InputSame
		case "output=rank-block":
			g.Output = OutputRankBlock
		case "output=same":
			g.Output = OutputSame
		case "":
		default:
			return g, fmt.Errorf("guidelines: %s: unknown option %q (want input=same|replicated or output=same|rank-block)", g.Name, strings.TrimSpace(opt))
		}
	}
	if g.Lhs == g.Rhs {
		return g, fmt.Errorf("guidelines: %s: both sides are %v", g.Name, g.Lhs)
	}
	return g, nil
}

func parseSide(s string) (Side, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return Side{}, fmt.Errorf("%q: want CALL(SIZE)", s)
	}
	sz, err := parseSize(s[open+1 : len(s)-1])
	if err != nil {
		return Side{}, err
	}
	call := strings.TrimSpace(s[:open])
	if strings.ContainsAny(call, " \t,") {
		return Side{}, fmt.Errorf("call %q contains a space or comma", call)
	}
	return Side{Call: call, Size: sz}, nil
}

// defaultTable is the default guidelines (Default), in the table format of
// ReadTable. Mock-ups (the names with "+") are calls of package mpi that
// execute the composition as one observation (mpi/guide.go).
const defaultTable = `# name                       guideline
allreduce-reduce-bcast       MPI_Allreduce(n) <= Reduce+Bcast(n)
allreduce-rsb-allgather      MPI_Allreduce(n) <= Reduce_scatter_block+Allgather(n)
bcast-scatter-allgather      MPI_Bcast(n) <= Scatter+Allgather(n)
allgather-gather-bcast       MPI_Allgather(n) <= Gather+Bcast(n)
allgather-alltoall           MPI_Allgather(n) <= MPI_Alltoall(n); input=replicated
gather-allgather             MPI_Gather(n) <= MPI_Allgather(n)
reduce-allreduce             MPI_Reduce(n) <= MPI_Allreduce(n)
scatter-bcast                MPI_Scatter(n) <= MPI_Bcast(p*n); output=rank-block
rsb-reduce-scatter           MPI_Reduce_scatter_block(n) <= Reduce+Scatter(n)
scan-exscan-reduce_local     MPI_Scan(n) <= Exscan+Reduce_local(n)
barrier-allreduce            MPI_Barrier(0) <= MPI_Allreduce(elem)
`

// Default returns the self-consistent performance guidelines of Hunold,
// Carpen-Amarie and Träff: every side a single observation. The size n is the
// left-hand side's msize_bytes:
//
//	Allreduce(n) ≤ Reduce(n) + Bcast(n)
//	Allreduce(n) ≤ Reduce_scatter_block(⌈n/p⌉) + Allgather(⌈n/p⌉)
//	Bcast(n) ≤ Scatter(⌈n/p⌉) + Allgather(⌈n/p⌉)
//	Allgather(n) ≤ Gather(n) + Bcast(p·n)
//	Allgather(n) ≤ Alltoall(n)          (the same bytes per pair of ranks)
//	Gather(n) ≤ Allgather(n)
//	Reduce(n) ≤ Allreduce(n)
//	Scatter(n) ≤ Bcast(p·n)
//	Reduce_scatter_block(n) ≤ Reduce(p·n) + Scatter(n)
//	Scan(n) ≤ Exscan(n) + a local reduction (MPI_Reduce_local)
//	Barrier ≤ Allreduce(one element)
//
// (the mock-ups' inner sizes, ⌈n/p⌉ and p·n, are theirs: every mock-up is
// measured at the left-hand side's n; see mpi/guide.go).
func Default() []Guideline {
	gs, err := ReadTable(strings.NewReader(defaultTable))
	if err != nil {
		panic(err) // the table is a constant: a bug here
	}
	return gs
}

// ReadTable reads guidelines, one per line: a name, white space, and the
// guideline as Parse reads it. Empty lines and lines starting with # are
// ignored. Names must be unique.
func ReadTable(r io.Reader) ([]Guideline, error) {
	var gs []Guideline
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		name, text, ok := strings.Cut(strings.ReplaceAll(s, "\t", " "), " ")
		if !ok {
			return nil, fmt.Errorf("guidelines: line %d: %q: want NAME GUIDELINE", line, s)
		}
		g, err := Parse(name, text)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if l, dup := seen[g.Name]; dup {
			return nil, fmt.Errorf("guidelines: line %d: name %q already used on line %d", line, g.Name, l)
		}
		seen[g.Name] = line
		gs = append(gs, g)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("guidelines: the table has no guideline")
	}
	return gs, nil
}

// WriteTable writes gs in the format ReadTable reads.
func WriteTable(w io.Writer, gs []Guideline) error {
	width := 0
	for _, g := range gs {
		width = max(width, len(g.Name))
	}
	for _, g := range gs {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, g.Name, g); err != nil {
			return err
		}
	}
	return nil
}
