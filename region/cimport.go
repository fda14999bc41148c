package region

import (
	"errors"
	"fmt"

	"github.com/reprobench/reprobench/internal/cregion"
	"github.com/reprobench/reprobench/timing"
)

func init() {
	cregion.Adopt = adoptC
	cregion.SpillFd = spillFd
}

// adoptC is cregion.Adopt: it moves the C recorder's state into rec.
func adoptC(rec any, st *cregion.State) error {
	r, ok := rec.(*Recorder)
	if !ok || r == nil || r.off {
		return fmt.Errorf("region: adopting C records needs an enabled *Recorder, not %T", rec)
	}
	if r.n != 0 || len(r.names) != 0 {
		return fmt.Errorf("region: adopting C records into a recorder that recorded %d records", r.n)
	}
	if len(st.Recs) > st.Capacity || st.Depth < 0 || st.Depth > MaxDepth {
		return fmt.Errorf("region: C state: %d records in a buffer of %d, depth %d", len(st.Recs), st.Capacity, st.Depth)
	}
	recs := make([]record, max(st.Capacity, 1))
	for i, c := range st.Recs {
		if c.Name < 0 || int(c.Name) >= len(st.Names) || c.Parent >= int32(i) {
			return fmt.Errorf("region: C record %d: name %d of %d, parent %d", i, c.Name, len(st.Names), c.Parent)
		}
		recs[i] = record{start: timing.Ticks(c.Start), end: timing.Ticks(c.End), iter: c.Iter, name: c.Name,
			parent: c.Parent, depth: c.Depth, closed: c.Closed}
	}
	r.recs, r.n = recs, len(st.Recs)
	for _, name := range st.Names {
		r.nameIdx[name] = int32(len(r.names))
		r.names = append(r.names, name)
	}
	r.depth, r.iter = st.Depth, st.Iter
	r.dropped, r.misuse, r.firstMisuse = st.Dropped, st.Misuse, st.FirstMisuse
	copy(r.kinds[:], st.Kinds[:])
	r.pairNs = st.PairNs
	if s := r.spill; s != nil {
		s.spilled, s.names, s.spills, s.spillS = st.Spilled, st.NamesSpilled, st.Spills, st.Spill.Seconds()
		if st.NamesSpilled > 0 || st.Spilled > 0 {
			s.labels = 1 // the C side wrote the label set "" with its first spill
		}
		if st.SpillErr != "" && s.writeErr == nil {
			s.writeErr = errors.New(st.SpillErr)
		}
	}
	return nil
}

// spillFd is cregion.SpillFd.
func spillFd(rec any) (uintptr, bool) {
	r, ok := rec.(*Recorder)
	if !ok || r == nil || r.spill == nil || r.spill.f == nil {
		return 0, false
	}
	return r.spill.f.Fd(), true
}
