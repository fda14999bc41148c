package rawdata

import (
	"fmt"
	"slices"
	"strings"
)

// Side is one side of a comparison: its name and its raw CSV files.
type Side struct {
	Name  string
	Files []string
}

// SidesByLabel splits files into one Side per value of the sidecar label
// key (Metadata.Labels), in the order of first appearance. Files whose
// sidecar cannot be read or lacks the label are left out.
func SidesByLabel(files []string, key string) []Side {
	var sides []Side
	for _, f := range files {
		p, ok := SidecarFor(f)
		if !ok {
			continue
		}
		m, err := ReadMetadata(p)
		if err != nil {
			continue
		}
		v, ok := m.Labels[key]
		if !ok {
			continue
		}
		i := slices.IndexFunc(sides, func(s Side) bool { return s.Name == v })
		if i < 0 {
			sides, i = append(sides, Side{Name: v}), len(sides)
		}
		sides[i].Files = append(sides[i].Files, f)
	}
	return sides
}

// BarrierWarning returns a warning for a comparison whose sides ran under
// different MPI libraries (Metadata.MPILibrary) while experiments of theirs
// were synchronized with the library's own MPI_Barrier
// (Summary.LibraryBarrier): the comparison then includes the two barriers'
// exit skew, which differs between libraries (Hunold & Carpen-Amarie 2016,
// §4.6, Fig. 11). It returns "" when the sides share a library, when no
// experiment used a library barrier, or when no sidecar says. It reads
// each side's sidecars (SidecarFor); those that cannot be read are skipped.
func BarrierWarning(sides []Side) string {
	names := make([]string, len(sides))
	metas := make([][]*Metadata, len(sides))
	for i, s := range sides {
		names[i] = s.Name
		for _, f := range s.Files {
			if p, ok := SidecarFor(f); ok {
				if m, err := ReadMetadata(p); err == nil {
					metas[i] = append(metas[i], m)
				}
			}
		}
	}
	return BarrierWarningOf(names, metas)
}

// BarrierWarningOf is BarrierWarning over sidecars already read: metas[i]
// are the sidecars of the side named names[i]; nil entries are skipped.
func BarrierWarningOf(names []string, metas [][]*Metadata) string {
	type sideLib struct {
		name, lib string
		barrier   bool
	}
	var seen []sideLib
	for i, ms := range metas {
		libs, barrier := map[string]bool{}, false
		for _, m := range ms {
			if m == nil || m.MPILibrary == "" {
				continue
			}
			libs[shortLibrary(m.MPILibrary)] = true
			for _, e := range m.Experiments {
				barrier = barrier || e.LibraryBarrier
			}
		}
		for lib := range libs {
			seen = append(seen, sideLib{names[i], lib, barrier})
		}
	}
	var used []string
	libs := map[string]bool{}
	for _, s := range seen {
		libs[s.lib] = true
		if s.barrier {
			used = append(used, fmt.Sprintf("%s (%s)", s.name, s.lib))
		}
	}
	if len(libs) < 2 || len(used) == 0 {
		return ""
	}
	slices.Sort(used)
	used = slices.Compact(used)
	return "warning: " + strings.Join(used, ", ") + " synchronized observations with their own MPI library's MPI_Barrier, " +
		"and the sides ran under different libraries: the comparison includes the barriers' exit skew " +
		"(Hunold & Carpen-Amarie 2016, §4.6); run --proc-sync window (the default) or dissemination (the tool's own barrier, the same code under every library) to compare the calls alone"
}

// shortLibrary is the first line of an MPI library version string, up to
// its first comma ("Open MPI v4.1.4", "MPICH Version:	4.0.2").
func shortLibrary(v string) string {
	v, _, _ = strings.Cut(v, "\n")
	v, _, _ = strings.Cut(v, ",")
	return strings.Join(strings.Fields(v), " ")
}
