package rawdata

import (
	"fmt"
	"path/filepath"
	"strings"
)

// PartialSuffix is appended to a file's name while it is written.
const PartialSuffix = ".partial"

// OutputBase returns DIR/RUNID-mpirunNNN, the path of the outputs of one
// mpirun without extension.
func OutputBase(dir, runID string, mpirun int) string {
	return filepath.Join(dir, fmt.Sprintf("%s-mpirun%03d", runID, mpirun))
}

// SidecarPath returns the path of the JSON sidecar of a mpirun, whose
// existence means the mpirun completed.
func SidecarPath(dir, runID string, mpirun int) string {
	return OutputBase(dir, runID, mpirun) + ".json"
}

// Names are the final paths of one mpirun's files.
type Names struct {
	CSV   string // raw data
	Ranks string // per-rank data ("" without per-rank output)
	JSON  string // metadata sidecar
}

// NamesFor returns the file names of mpirun of runID in dir.
func NamesFor(dir, runID string, mpirun int, perRank bool) Names {
	base := OutputBase(dir, runID, mpirun)
	n := Names{CSV: base + ".csv", JSON: base + ".json"}
	if perRank {
		n.Ranks = base + ".ranks.csv"
	}
	return n
}

// all returns the non-empty names, the sidecar last.
func (n Names) all() []string {
	out := []string{n.CSV}
	if n.Ranks != "" {
		out = append(out, n.Ranks)
	}
	return append(out, n.JSON)
}

// SimulatedFiles reports, for raw or per-rank CSV files of mpiruns, which
// come from simulated mpiruns (Metadata.Simulated): it reads the sidecar
// beside each file (RUN-mpirunNNN.json for RUN-mpirunNNN.csv and
// .ranks.csv). A file without a readable sidecar, or "-", counts as
// measured. It returns the simulated files and the others.
func SimulatedFiles(files []string) (simulated, measured []string) {
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimSuffix(f, ".csv"), ".ranks")
		if f != "-" && base != f {
			if m, err := ReadMetadata(base + ".json"); err == nil && m.Simulated() {
				simulated = append(simulated, f)
				continue
			}
		}
		measured = append(measured, f)
	}
	return simulated, measured
}
