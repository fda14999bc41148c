package cregion

import "time"

// Rec is one region occurrence as the C recorder stores it: Start and End
// are ticks of the recorder's clock (nanoseconds since its epoch), Iter the
// iteration (−1: none), Name an index into State.Names, Parent the index
// of the enclosing record (−1 at the top), Depth its nesting depth.
type Rec struct {
	Start, End, Iter int64
	Name, Parent     int32
	Depth            int16
	Closed           bool
}

// State is what the C recorder hands to region at teardown.
type State struct {
	// Recs are the records in the order of their Begin, Capacity the size
	// of the C buffer (records).
	Recs     []Rec
	Capacity int
	// Names are the valid region names in the order first seen.
	Names []string
	// Depth is the number of regions still open; Iter the current
	// iteration.
	Depth int
	Iter  int64
	// Dropped, Misuse, Kinds (indexed by region.Misuse) and FirstMisuse
	// are the C recorder's account.
	Dropped, Misuse int64
	Kinds           [4]int64
	FirstMisuse     string
	// PairNs is the measured cost of a C Begin/End pair, nanoseconds.
	PairNs float64
	// Spilled is the number of records the C side wrote to the spill
	// file, NamesSpilled the number of names, Spills the writes, Spill
	// their time (on the recorder's clock), SpillErr the first write error
	// ("" for none).
	Spilled, NamesSpilled, Spills int
	Spill                         time.Duration
	SpillErr                      string
}

// Adopt replaces the records and account of rec, a *region.Recorder made
// by region.StartWith through which nothing was recorded, with st's, so
// that its Close writes them. Set by package region.
var Adopt func(rec any, st *State) error

// SpillFd returns the file descriptor of rec's spill file and whether it
// has one (region.Options.Spill). Set by package region.
var SpillFd func(rec any) (fd uintptr, ok bool)
