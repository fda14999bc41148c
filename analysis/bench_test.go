package analysis

import (
	"bytes"
	"testing"

	"github.com/reprobench/reprobench/analysis/synth"
)

// BenchmarkReadAnalyze reads and analyzes 120,000 synthetic rows per
// iteration (bench/analysis/run.sh does the same at 10 million rows).
func BenchmarkReadAnalyze(b *testing.B) {
	var buf bytes.Buffer
	c := synth.Config{RunID: "b", Mpiruns: 10, Reps: 1000, Calls: []string{"MPI_Allreduce", "MPI_Bcast"},
		Msizes: []int{8, 1024, 65536}, Np: 4, Label: "lib", LabelValues: []string{"a", "b"},
		NoiseSD: 0.05, InvalidFrac: 0.001, OutlierFrac: 0.002, Seed: 1}
	if err := synth.Write(&buf, c); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := ReadRaw(bytes.NewReader(data), "bench")
		if err != nil {
			b.Fatal(err)
		}
		if len(Analyze(d, DefaultOptions)) != 12 {
			b.Fatal("wrong number of groups")
		}
	}
	b.ReportMetric(float64(c.Rows()), "rows/op")
}
