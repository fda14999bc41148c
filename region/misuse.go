package region

import (
	"fmt"
	"io"
	"os"
)

// Misuse is a kind of wrong use of the annotations, counted per rank at
// the moment it happens. The first of each kind on a rank is also noted at
// once on Options.Notes (standard error by default), and Close states the
// counts (Record.Misuse, RankLog.MisuseKinds).
type Misuse int

// The kinds of misuse.
const (
	// EndWithoutBegin is an End (or a Region's closing call) with no open
	// region.
	EndWithoutBegin Misuse = iota
	// EndMismatch is an End naming another region than the innermost open
	// one; the innermost is closed all the same.
	EndMismatch
	// BadName is a Begin (or Region) whose name cannot be a label value
	// (rawdata.CheckLabel: a comma, a quote, a line break) or is empty:
	// nothing is recorded, and its End closes nothing.
	BadName
	// BadLabel is a SetLabel whose key or value rawdata.CheckLabel refuses,
	// or whose key is "region": the labels stay as they were.
	BadLabel
	numMisuse
)

// String names the kind as the sidecar and the notes do.
func (m Misuse) String() string {
	switch m {
	case EndWithoutBegin:
		return "end_without_begin"
	case EndMismatch:
		return "end_mismatch"
	case BadName:
		return "bad_name"
	case BadLabel:
		return "bad_label"
	}
	return fmt.Sprintf("Misuse(%d)", int(m))
}

// describe says what m is, for the notes and the first misuse.
func (m Misuse) describe() string {
	switch m {
	case EndWithoutBegin:
		return "End without an open region"
	case EndMismatch:
		return "End of another region than the innermost open one"
	case BadName:
		return "Begin with a region name that is empty or holds a comma, quote or line break (not recorded)"
	case BadLabel:
		return "SetLabel with a bad key or value (ignored)"
	}
	return m.String()
}

// notes returns where the one-time notes go.
func (o *Options) notes() io.Writer {
	if o.Notes != nil {
		return o.Notes
	}
	return os.Stderr
}

// noteMisuse counts a misuse of kind k at call arg (what the user passed)
// and notes the first of its kind on this rank.
func (r *Recorder) noteMisuse(k Misuse, call string) {
	r.misuse++
	r.kinds[k]++
	what := k.describe() + ": " + call
	if r.firstMisuse == "" {
		r.firstMisuse = what
	}
	if r.kinds[k] == 1 {
		fmt.Fprintf(r.opt.notes(), "region: rank %d: %s; counted, further ones of this kind are counted silently and stated at Close\n", r.c.Rank(), what)
	}
}

// noteDrop counts a Begin that recorded nothing (buffer full or nesting
// too deep) and notes the first on this rank.
func (r *Recorder) noteDrop(why string) {
	r.dropped++
	if r.dropped == 1 {
		fmt.Fprintf(r.opt.notes(), "region: rank %d: %s: Begin records nothing from now on while it lasts (dropped, counted and stated at Close)\n", r.c.Rank(), why)
	}
}
