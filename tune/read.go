package tune

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// ReadSamples reads raw CSV files (analysis.Dataset.ReadFiles, which
// refuses a file whose sidecar has a newer major format version) and
// returns one Sample per group and mpirun: the per-mpirun median of
// analysis.Analyze with analysis.DefaultOptions (Tukey's fences per
// mpirun, as analyze and the gate use), with the candidate taken from
// the label column named column (a covariate column of that name is
// grouped by). The Source lists the files, the column and the MPI
// library the sidecars name. It is an error when a group has no value in
// column, when the groups differ in another label (they would not be one
// campaign's cells), or when the sidecars name different libraries.
func ReadSamples(files []string, column string) ([]Sample, Source, error) {
	src := Source{Files: slices.Clone(files), Column: column}
	if column == "" {
		return nil, src, errors.New("tune: no candidate column named")
	}
	d := analysis.NewDataset()
	if slices.Contains(rawdata.CovariateColumns, column) {
		d.GroupBy = append(d.GroupBy, column)
	}
	if err := d.ReadFiles(files...); err != nil {
		return nil, src, err
	}
	for _, f := range files {
		side, ok := rawdata.SidecarFor(f)
		if !ok {
			continue
		}
		md, err := rawdata.ReadMetadata(side)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, src, err
		}
		switch {
		case md.MPILibrary == "":
		case src.Library == "":
			src.Library = md.MPILibrary
		case src.Library != md.MPILibrary:
			return nil, src, fmt.Errorf("tune: %s ran %q, other files %q: one decision file per library", f, md.MPILibrary, src.Library)
		}
	}
	var out []Sample
	rest, restSet := "", false
	for _, g := range analysis.Analyze(d, analysis.DefaultOptions) {
		cand := g.Key.LabelValue(column)
		if cand == "" {
			return nil, src, fmt.Errorf("tune: group %s has no %s value", g.Key, column)
		}
		other := g.Key.WithoutLabel(column).Labels
		if restSet && other != rest {
			return nil, src, fmt.Errorf("tune: groups differ in labels other than %s (%q, %q): read one campaign's cells", column, rest, other)
		}
		rest, restSet = other, true
		for i, m := range g.MpirunMedians {
			out = append(out, Sample{Call: g.Key.Call, Bytes: int64(g.Key.MsizeBytes), Np: g.Key.Np, Candidate: cand,
				Mpirun: int(g.MpirunIndex[i]), Median: duration(m)})
		}
	}
	return out, src, nil
}
