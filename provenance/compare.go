package provenance

import (
	"fmt"
	"slices"
	"strings"
)

// defaultText is the value of a control variable a record does not list as
// differing from its default.
const defaultText = "default"

// cvarPrefix marks the facts that are MPI_T control variables.
const cvarPrefix = "cvar "

// Facts flattens the record into the facts a comparison lists when they
// differ, by name: the library (its first line), the launcher, per node
// the clock source, whether the clock is disciplined, the CPU facts, the
// binding (bound, unbound or mixed; the groups that share a CPU; whether
// a rank migrated), and every control variable that differs from its
// default and is not per job ("cvar NAME"). Node facts are named with the
// node's index when there are several.
func (r *Record) Facts() map[string]string {
	f := map[string]string{}
	lib, _, _ := strings.Cut(r.Library, "\n")
	f["MPI library"] = strings.Join(strings.Fields(lib), " ")
	f["launcher"] = r.Launcher.Name
	for i, n := range r.Nodes {
		at := ""
		if len(r.Nodes) > 1 {
			at = fmt.Sprintf(" (node %d)", i)
		}
		f["clock source"+at] = n.ClockSource
		f["clock synchronized by a time daemon"+at] = yesNo(n.Adjtimex.Synchronized)
		f["cpufreq governor"+at] = n.CPU.Governor
		f["max frequency kHz"+at] = n.CPU.MaxKHz
		f["turbo"+at] = n.CPU.Turbo
		f["SMT"+at] = n.CPU.SMT
		f["transparent huge pages"+at] = n.CPU.THP
		var shared []string
		for _, o := range n.Overlaps {
			if o.Shared {
				shared = append(shared, "ranks "+joinInts(o.Ranks)+" share CPU "+o.CPUs)
			}
		}
		if len(shared) == 0 {
			shared = []string{"none"}
		}
		f["shared CPUs"+at] = strings.Join(shared, "; ")
	}
	bound, moved := 0, 0
	for _, k := range r.Ranks {
		if k.Bound {
			bound++
		}
		if k.Migrations > 0 {
			moved++
		}
	}
	switch {
	case bound == len(r.Ranks):
		f["binding"] = "bound"
	case bound == 0:
		f["binding"] = "unbound"
	default:
		f["binding"] = fmt.Sprintf("%d of %d ranks bound", bound, len(r.Ranks))
	}
	f["ranks that migrated"] = fmt.Sprint(moved)
	if r.MPIT != nil {
		for _, c := range r.MPIT.Differ {
			if !c.PerJob {
				f[cvarPrefix+c.Name] = c.Value
			}
		}
	}
	return f
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Differences lists what differs between the sides and across one side's
// mpiruns: sides[i] are the records of the mpiruns of the side named
// names[i] (nil entries, sidecars before the record, are skipped). A fact
// whose values differ between two sides reads "B: NAME=VALUE (A: VALUE)",
// with "default" for a control variable a side left at its default; one
// that differs across a side's own mpiruns reads "A: NAME differs across
// its mpiruns: V (n), W (m)". Facts only one side recorded are not listed.
func Differences(names []string, sides [][]*Record) []string {
	vals := make([]map[string]map[string]int, len(sides)) // side → fact → value → mpiruns
	has := make([]int, len(sides))
	keys := map[string]bool{}
	for i, recs := range sides {
		vals[i] = map[string]map[string]int{}
		for _, r := range recs {
			if r == nil {
				continue
			}
			has[i]++
			for k := range r.Facts() {
				keys[k] = true
			}
		}
	}
	for i, recs := range sides {
		for _, r := range recs {
			if r == nil {
				continue
			}
			f := r.Facts()
			for k := range keys {
				v, ok := f[k]
				if !ok {
					if !strings.HasPrefix(k, cvarPrefix) {
						continue
					}
					v = defaultText
				}
				if vals[i][k] == nil {
					vals[i][k] = map[string]int{}
				}
				vals[i][k][v]++
			}
		}
	}
	show := func(m map[string]int) string {
		vs := make([]string, 0, len(m))
		for v := range m {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		return strings.Join(vs, " | ")
	}
	name := func(k string) string { return strings.TrimPrefix(k, cvarPrefix) }
	var out []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}) {
		for i := range sides {
			if has[i] == 0 || len(vals[i][k]) == 0 {
				continue
			}
			if len(vals[i][k]) > 1 {
				var parts []string
				for _, v := range slices.Sorted(func(yield func(string) bool) {
					for v := range vals[i][k] {
						if !yield(v) {
							return
						}
					}
				}) {
					parts = append(parts, fmt.Sprintf("%s (%d)", v, vals[i][k][v]))
				}
				out = append(out, fmt.Sprintf("%s: %s differs across its mpiruns: %s", names[i], name(k), strings.Join(parts, ", ")))
			}
		}
		for i := 1; i < len(sides); i++ {
			if has[0] == 0 || has[i] == 0 || len(vals[0][k]) == 0 || len(vals[i][k]) == 0 {
				continue
			}
			a, b := show(vals[0][k]), show(vals[i][k])
			if a != b {
				out = append(out, fmt.Sprintf("%s: %s=%s (%s: %s)", names[i], name(k), b, names[0], a))
			}
		}
	}
	return out
}
