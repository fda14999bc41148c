package campaign

import (
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"mpirun -np {np}", []string{"mpirun", "-np", "{np}"}},
		{"  srun  -n {np}\t--mpi=pmix ", []string{"srun", "-n", "{np}", "--mpi=pmix"}},
		{`mpirun -x 'A=b c' "--mca x \"y\"" a\ b $HOME`, []string{"mpirun", "-x", "A=b c", `--mca x "y"`, "a b", "$HOME"}},
		{`''`, []string{""}},
	} {
		got, err := SplitCommand(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "  ", "a 'b", `a "b`, `a\`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q) accepted", bad)
		}
	}
	if got := ExpandLauncher([]string{"srun", "-n", "{np}", "--x={np}"}, 4); !slices.Equal(got, []string{"srun", "-n", "4", "--x=4"}) {
		t.Errorf("ExpandLauncher: %q", got)
	}
}

func TestCheckRunArgs(t *testing.T) {
	for _, ok := range [][]string{nil, {"--calls", "MPI_Bcast", "--nrep=10"}, {"--", "--out"}, {"---out"}, {"output"}} {
		if err := CheckRunArgs(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range [][]string{{"--out", "x"}, {"-seed=3"}, {"--run-id=a"}, {"--mpirun", "1"}, {"--design", "f"}} {
		if err := CheckRunArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestCheckRunID(t *testing.T) {
	for _, ok := range []string{"a", "20261122T0344Z-x.y_z"} {
		if CheckRunID(ok) != nil {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, bad := range []string{"", ".a", "-a", "a/b", "a*", "a b"} {
		if CheckRunID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
