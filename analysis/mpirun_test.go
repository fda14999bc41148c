package analysis

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestPerMpirun checks the per-mpirun summaries against hand values and
// against AnalyzeGroup, whose filtering they repeat.
func TestPerMpirun(t *testing.T) {
	const csv = `run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode
r,0,0,MPI_Bcast,8,8,byte,2,0,4,0
r,0,0,MPI_Bcast,8,8,byte,2,1,1,0
r,0,0,MPI_Bcast,8,8,byte,2,2,100,0
r,0,0,MPI_Bcast,8,8,byte,2,3,3,0
r,0,0,MPI_Bcast,8,8,byte,2,4,2,0
r,1,0,MPI_Bcast,8,8,byte,2,0,10,0
r,1,0,MPI_Bcast,8,8,byte,2,1,11,1
r,2,0,MPI_Bcast,8,8,byte,2,0,5,1
`
	d, err := ReadRaw(strings.NewReader(csv), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	g := d.Groups[0]
	runs := PerMpirun(g, 1.5)
	// mpirun 2 has only an invalid row: no valid observation, no entry.
	if len(runs) != 2 {
		t.Fatalf("%d mpiruns, want 2: %+v", len(runs), runs)
	}
	// R 4.2.2: quantile(c(1, 2, 3, 4), c(.25, .5, .75)) = 1.75 2.5 3.25;
	// 100 is above Q3 + 1.5·IQR of c(1, 2, 3, 4, 100) = 4 + 1.5·2 = 7.
	m0 := runs[0]
	if m0.N != 4 || m0.Outliers != 1 || m0.Q1 != 1.75 || m0.Median != 2.5 || m0.Q3 != 3.25 {
		t.Errorf("mpirun 0: %+v; want n 4, 1 outlier, quartiles 1.75 2.5 3.25", m0)
	}
	// R: shapiro.test(c(1, 2, 3, 4))$p.value = 0.9719
	if math.Abs(m0.Normality.P-0.9719) > 1e-4 {
		t.Errorf("mpirun 0: Shapiro-Wilk p = %g, want 0.9719", m0.Normality.P)
	}
	if m1 := runs[1]; m1.N != 1 || m1.Median != 10 || !math.IsNaN(m1.Normality.P) {
		t.Errorf("mpirun 1: %+v; want one observation, median 10, no normality test", m1)
	}
	s := AnalyzeGroup(g, Options{TukeyK: 1.5, Level: 0.95})
	var meds []float64
	for _, r := range runs {
		meds = append(meds, r.Median)
	}
	if !slices.Equal(meds, s.MpirunMedians) || s.OutliersRemoved != m0.Outliers+runs[1].Outliers {
		t.Errorf("PerMpirun medians %v, outliers %d; AnalyzeGroup %v, %d", meds, m0.Outliers+runs[1].Outliers, s.MpirunMedians, s.OutliersRemoved)
	}
}
