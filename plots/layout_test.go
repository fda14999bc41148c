package plots

import (
	"slices"
	"testing"

	"gonum.org/v1/plot"

	"github.com/reprobench/reprobench/analysis"
)

func TestHumanBytes(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0 B"}, {8, "8 B"}, {1000, "1000 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"},
		{32768, "32 KiB"}, {1 << 20, "1 MiB"}, {3 << 30, "3 GiB"},
	} {
		if got := HumanBytes(c.n); got != c.want {
			t.Errorf("HumanBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestGroupLabels(t *testing.T) {
	keys := []analysis.GroupKey{
		{Call: "MPI_Allreduce", MsizeBytes: 8, Np: 2, Datatype: "float64", Labels: "mpi_lib=mpich"},
		{Call: "MPI_Allreduce", MsizeBytes: 1024, Np: 2, Datatype: "float64", Labels: "mpi_lib=openmpi"},
		{Call: "MPI_Bcast", MsizeBytes: 32768, Np: 2, Datatype: "float64", Labels: "mpi_lib=mpich"},
	}
	names, common := GroupLabels(keys, 34)
	want := []string{"Allreduce, 8 B, mpi_lib=mpich", "Allreduce, 1 KiB, mpi_lib=openmpi", "Bcast, 32 KiB, mpi_lib=mpich"}
	if !slices.Equal(names, want) || common != "np=2, float64" {
		t.Errorf("GroupLabels = %q, %q; want %q, %q", names, common, want, "np=2, float64")
	}
	names, _ = GroupLabels(keys, 12)
	if names[1] != "Allreduce,\n1 KiB,\nmpi_lib=openmpi" {
		t.Errorf("wrapped label = %q", names[1])
	}
	if names, common := GroupLabels(keys[:1], 80); names[0] != "Allreduce, 8 B, np=2, float64, mpi_lib=mpich" || common != "" {
		t.Errorf("single group: %q, %q", names, common)
	}
}

func tickLabels(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{450, 1250, []string{"500", "600", "700", "800", "900", "1000", "1100", "1200"}},
		{-0.33, 1, []string{"-0.2", "0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{-2.6, 0, []string{"-2.5", "-2.0", "-1.5", "-1.0", "-0.5", "0.0"}},
		{0, 30, []string{"0", "5", "10", "15", "20", "25", "30"}},
	} {
		if got := tickLabels(niceTicks{}.Ticks(c.lo, c.hi)); !slices.Equal(got, c.want) {
			t.Errorf("niceTicks(%g, %g) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestTimeLogTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{4.2e-7, 2.7e-5, []string{"500 ns", "1 µs", "2 µs", "5 µs", "10 µs", "20 µs"}},
		{1.1e-6, 4e-6, []string{"2 µs", "3 µs", "4 µs"}},
		{2e-9, 3, []string{"10 ns", "100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s"}},
	} {
		if got := tickLabels(timeLogTicks{}.Ticks(c.lo, c.hi)); !slices.Equal(got, c.want) {
			t.Errorf("timeLogTicks(%g, %g) = %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

func TestUseLog(t *testing.T) {
	meds := []float64{7e-7, 1.7e-5} // 24×, as 8 B … 32 KiB in the demo
	for _, c := range []struct {
		mode    LogMode
		meds    []float64
		minV    float64
		want    bool
		wantErr bool
	}{
		{"auto", meds, 4e-7, true, false},
		{"auto", []float64{1e-6, 9e-6}, 4e-7, false, false},
		{"auto", meds, 0, false, false}, // a zero run time: fall back to linear
		{"off", meds, 4e-7, false, false},
		{"on", []float64{1e-6, 2e-6}, 4e-7, true, false},
		{"on", meds, -1e-9, false, true},
	} {
		got, err := useLog(c.mode, c.meds, c.minV)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("useLog(%s, %v, %g) = %v, %v; want %v, error %v", c.mode, c.meds, c.minV, got, err, c.want, c.wantErr)
		}
	}
}
