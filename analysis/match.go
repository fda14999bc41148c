package analysis

import (
	"maps"
	"slices"
	"sort"
	"strings"
)

// SideLabels returns, sorted, the names of the labels that name the two
// sides of a comparison of data sets a and b rather than vary inside
// them: labels with one value in every group of a (absent counts as the
// empty value), one value in every group of b, and a different value in
// a than in b. A campaign labelled lib=openmpi compared with one labelled
// lib=mpich has lib as its side label; matching groups on it would find
// no group in common. Labels that vary within a side are never side
// labels. Nil when either data set has no groups.
func SideLabels(a, b *Dataset) []string {
	if a == nil || b == nil {
		return nil
	}
	names := labelNames(a, b)
	va, oka := constantLabels(a, names)
	vb, okb := constantLabels(b, names)
	if !oka || !okb {
		return nil
	}
	var out []string
	for name := range names {
		x, inA := va[name]
		y, inB := vb[name]
		if inA && inB && x != y {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// labelNames returns every label name that occurs in a or b.
func labelNames(ds ...*Dataset) map[string]bool {
	names := map[string]bool{}
	for _, d := range ds {
		for _, g := range d.Groups {
			for _, l := range splitLabels(g.Key.Labels) {
				names[l.Name] = true
			}
		}
	}
	return names
}

// constantLabels returns, for every label in names that has one value
// across all groups of d (absent: the empty value), that value. ok is
// false for a data set without groups.
func constantLabels(d *Dataset, names map[string]bool) (map[string]string, bool) {
	if len(d.Groups) == 0 {
		return nil, false
	}
	vals := map[string]string{}
	varies := map[string]bool{}
	for i, g := range d.Groups {
		for name := range names {
			v := g.Key.LabelValue(name)
			if i == 0 {
				vals[name] = v
			} else if vals[name] != v {
				varies[name] = true
			}
		}
	}
	for name := range varies {
		delete(vals, name)
	}
	return vals, true
}

// sideValue renders the values of the side labels in a key as
// "name=value,name=value" (sorted by name; an absent label as "name=").
func sideValue(k GroupKey, side []string) string {
	parts := make([]string, len(side))
	for i, name := range side {
		parts[i] = name + "=" + k.LabelValue(name)
	}
	return strings.Join(parts, ",")
}

// withoutLabels returns k without the labels in names.
func withoutLabels(k GroupKey, names []string) GroupKey {
	for _, n := range names {
		k = k.WithoutLabel(n)
	}
	return k
}

// Compare matches the groups of a and b and compares each pair
// (CompareSummaries): CompareIgnoring with the side labels of a and b
// (SideLabels), so that two campaigns that differ only in the label that
// names them (lib=openmpi, lib=mpich) compare group by group. Groups
// present on only one side are reported in onlyA / onlyB.
func Compare(a, b *Dataset, opt Options) (rows []Comparison, onlyA, onlyB []GroupKey) {
	return CompareIgnoring(a, b, SideLabels(a, b), opt)
}

// CompareIgnoring matches the groups of a and b on their keys without the
// labels named in ignore and compares each pair (CompareSummaries). The
// row's Key is the key without those labels; NameA and NameB are the
// ignored labels' values on each side ("lib=openmpi"), empty when ignore
// is empty. Groups of a side that share a key once the labels are removed
// cannot be matched and are reported in onlyA / onlyB with their full
// keys, as are groups present on one side only.
func CompareIgnoring(a, b *Dataset, ignore []string, opt Options) (rows []Comparison, onlyA, onlyB []GroupKey) {
	index := func(d *Dataset) (map[GroupKey]*Group, []GroupKey) {
		m := map[GroupKey]*Group{}
		var dup []GroupKey
		for _, g := range d.Groups {
			k := withoutLabels(g.Key, ignore)
			if h, ok := m[k]; ok {
				if h != nil {
					dup = append(dup, h.Key)
				}
				dup = append(dup, g.Key)
				m[k] = nil
				continue
			}
			m[k] = g
		}
		return m, dup
	}
	if a == nil {
		a = NewDataset()
	}
	if b == nil {
		b = NewDataset()
	}
	ia, dupA := index(a)
	ib, dupB := index(b)
	onlyA, onlyB = dupA, dupB
	sums := summaryMap(append(slices.Clone(a.Groups), b.Groups...), opt)
	for _, k := range slices.SortedFunc(maps.Keys(ia), func(x, y GroupKey) int { return cmpKey(x, y) }) {
		ga := ia[k]
		if ga == nil {
			continue
		}
		gb := ib[k]
		if gb == nil { // absent from b, or ambiguous there
			onlyA = append(onlyA, ga.Key)
			continue
		}
		c := compareGroups(ga, gb, sums[ga], sums[gb], opt)
		c.Key = k
		if len(ignore) > 0 {
			c.NameA, c.NameB = sideValue(ga.Key, ignore), sideValue(gb.Key, ignore)
		}
		rows = append(rows, c)
	}
	for _, g := range b.Groups {
		k := withoutLabels(g.Key, ignore)
		if ib[k] == g && ia[k] == nil {
			onlyB = append(onlyB, g.Key)
		}
	}
	sort.Slice(onlyA, func(i, j int) bool { return keyLess(onlyA[i], onlyA[j]) })
	sort.Slice(onlyB, func(i, j int) bool { return keyLess(onlyB[i], onlyB[j]) })
	return rows, onlyA, onlyB
}

func cmpKey(a, b GroupKey) int {
	switch {
	case keyLess(a, b):
		return -1
	case keyLess(b, a):
		return 1
	}
	return 0
}
