package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis/synth"
)

// cmpCase is one data set of TestCompareEstimatesInsideOwnIntervals: the
// compare arguments after "compare --format csv|json".
type cmpCase struct {
	name string
	args func(t *testing.T, dir string) []string
	// disagree: the case is built so that the median ratio lies outside
	// the Hodges-Lehmann ratio's interval, so pairing one estimator with
	// the other's interval cannot pass unnoticed.
	disagree bool
}

// cmpWriteRaw writes a raw file of one call, mpiruns × n observations per
// side, whose mpirun m draws its runtimes from draw(m, rng).
func cmpWriteRaw(t *testing.T, path, runID string, mpiruns, n int, seed uint64, draw func(m int, r *rand.Rand) float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0xc0))
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n")
	for m := range mpiruns {
		for i := range n {
			fmt.Fprintf(&b, "%s,%d,0,MPI_Allreduce,8,1,float64,2,%d,%g,0\n", runID, m, i, 1e-6*draw(m, rng))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bimodal returns the runtime draw of analysis' bimodal test distribution
// (stop_test.go: N(1, 0.02) or N(1.15, 0.02), in µs here) with the mode
// fixed per mpirun: of every 20 mpiruns the first fast run in the fast
// mode, the others in the slow one (a hidden state set per mpirun).
func bimodal(fast int) func(m int, r *rand.Rand) float64 {
	return func(m int, r *rand.Rand) float64 {
		if m%20 < fast {
			return 1 + 0.02*r.NormFloat64()
		}
		return 1.15 + 0.02*r.NormFloat64()
	}
}

// cmpCases are the simulated comparisons: the golden campaigns of the
// other compare tests (log-normal mpirun and observation noise, libA 20 %
// slower in b.csv), compared A -- B, by label and paired; a synthetic pair
// with 8 mpiruns per side (enough for a full-level median-ratio
// interval); and the bimodal case, where the two estimators disagree most:
// A's mpiruns 55 % in the fast mode, B's 45 %, so that the medians sit in
// different modes (median ratio ≈ 1.15) while most pairs of mpiruns share
// a mode (Hodges-Lehmann ratio ≈ 1.00, its interval inside the shared
// mode), with 40 mpiruns per side, and 60 % against 40 % with one mpirun
// per side (the test then compares observations).
var cmpCases = []cmpCase{
	{name: "golden A -- B", args: func(*testing.T, string) []string { return []string{anA, "--", anB} }},
	{name: "golden --by", args: func(*testing.T, string) []string { return []string{"--by", "mpi_lib", anA} }},
	{name: "golden --by --paired", args: func(*testing.T, string) []string { return []string{"--by", "mpi_lib", "--paired", anA} }},
	{name: "synth 8 mpiruns", args: func(t *testing.T, dir string) []string {
		var files []string
		for i, f := range []float64{1, 1.1} {
			var b bytes.Buffer
			if err := synth.Write(&b, synth.Config{RunID: fmt.Sprint("s", i), Mpiruns: 8, Reps: 40, Calls: []string{"MPI_Bcast"},
				Msizes: []int{8, 4096}, Np: 4, Label: "lib", LabelValues: []string{"x"}, Factors: []float64{f},
				MpirunSD: 0.03, NoiseSD: 0.05, OutlierFrac: 0.01, Seed: uint64(7 + i)}); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, fmt.Sprint("s", i, ".csv"))
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, p)
		}
		return []string{files[0], "--", files[1]}
	}},
	{name: "bimodal 40 mpiruns", disagree: true, args: func(t *testing.T, dir string) []string {
		return []string{cmpWriteRaw(t, filepath.Join(dir, "a.csv"), "a", 40, 50, 1, bimodal(11)), "--",
			cmpWriteRaw(t, filepath.Join(dir, "b.csv"), "b", 40, 50, 2, bimodal(9))}
	}},
	{name: "bimodal 1 mpirun", disagree: true, args: func(t *testing.T, dir string) []string {
		// One mpirun per side: the modes alternate by observation, 60 % and
		// 40 % fast.
		obs := func(fast float64) func(int, *rand.Rand) float64 {
			i := 0
			return func(_ int, r *rand.Rand) float64 {
				i++
				if float64(i%10) < 10*fast {
					return 1 + 0.02*r.NormFloat64()
				}
				return 1.15 + 0.02*r.NormFloat64()
			}
		}
		return []string{cmpWriteRaw(t, filepath.Join(dir, "a.csv"), "a", 1, 200, 3, obs(0.6)), "--",
			cmpWriteRaw(t, filepath.Join(dir, "b.csv"), "b", 1, 200, 4, obs(0.4))}
	}},
}

// cmpIntervalPairs returns, for a header, the estimate columns that have
// interval columns of their own: X with X_ci_lo and X_ci_hi, or X_s with
// X_ci_lo_s and X_ci_hi_s; the value is the indices of X, lo and hi.
func cmpIntervalPairs(header []string) map[string][3]int {
	idx := map[string]int{}
	for i, h := range header {
		idx[h] = i
	}
	out := map[string][3]int{}
	for _, h := range header {
		lo, hi := h+"_ci_lo", h+"_ci_hi"
		if base, ok := strings.CutSuffix(h, "_s"); ok {
			lo, hi = base+"_ci_lo_s", base+"_ci_hi_s"
		}
		if il, ok := idx[lo]; ok {
			if ih, ok := idx[hi]; ok {
				out[h] = [3]int{idx[h], il, ih}
			}
		}
	}
	return out
}

// TestCompareEstimatesInsideOwnIntervals fails when any estimate in
// compare's CSV (and JSON) lies outside its own interval columns, over
// every simulated case (cmpCases); it needs the median ratio, the
// Hodges-Lehmann ratio and the shift to be among the checked pairs, so a
// renamed column cannot make it vacuous. In the bimodal cases it also
// checks that the two ratios disagree (the median ratio outside the
// Hodges-Lehmann interval): there an estimator printed beside the other's
// interval fails.
func TestCompareEstimatesInsideOwnIntervals(t *testing.T) {
	for _, tc := range cmpCases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args(t, t.TempDir())
			var out, errb bytes.Buffer
			if err := run(&out, &errb, append([]string{"compare", "--format", "csv"}, args...)); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			recs, err := csv.NewReader(&out).ReadAll()
			if err != nil || len(recs) < 2 {
				t.Fatalf("csv: %v, %d records", err, len(recs))
			}
			header := recs[0]
			pairs := cmpIntervalPairs(header)
			for _, need := range []string{"median_ratio", "hl_ratio", "shift_s"} {
				if _, ok := pairs[need]; !ok {
					t.Fatalf("no interval columns for %s in %v", need, header)
				}
			}
			col := map[string]int{}
			for i, h := range header {
				col[h] = i
			}
			for _, rec := range recs[1:] {
				num := func(i int) float64 {
					v, err := strconv.ParseFloat(rec[i], 64)
					if err != nil {
						t.Fatalf("%s: %q: %v", header[i], rec[i], err)
					}
					return v
				}
				checked := 0
				for name, p := range pairs {
					v, lo, hi := num(p[0]), num(p[1]), num(p[2])
					if math.IsNaN(lo) || math.IsNaN(hi) {
						continue
					}
					checked++
					if !(lo <= v && v <= hi) {
						t.Errorf("%s %s: %s = %g outside its interval [%g, %g]", rec[col["call"]], rec[col["msize_bytes"]], name, v, lo, hi)
					}
				}
				if checked < 3 {
					t.Errorf("row %v: only %d estimates had an interval; want the median ratio, the HL ratio and the shift", rec, checked)
				}
				if tc.disagree {
					mr, lo, hi := num(col["median_ratio"]), num(col["hl_ratio_ci_lo"]), num(col["hl_ratio_ci_hi"])
					t.Logf("median ratio %.4f [%.4f, %.4f] (confidence %.4f); HL ratio %.4f [%.4f, %.4f]", mr,
						num(col["median_ratio_ci_lo"]), num(col["median_ratio_ci_hi"]), num(col["median_ratio_ci_confidence"]),
						num(col["hl_ratio"]), lo, hi)
					if lo <= mr && mr <= hi {
						t.Errorf("median ratio %g inside the HL interval [%g, %g]: the case does not tell the estimators apart", mr, lo, hi)
					}
				}
			}
			out.Reset()
			if err := run(&out, &errb, append([]string{"compare", "--format", "json"}, args...)); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			var js struct {
				Format      int              `json:"compare_format"`
				Comparisons []map[string]any `json:"comparisons"`
			}
			if err := json.Unmarshal(out.Bytes(), &js); err != nil || js.Format != 2 || len(js.Comparisons) != len(recs)-1 {
				t.Fatalf("json: %v, compare_format %d, %d rows (csv %d)", err, js.Format, len(js.Comparisons), len(recs)-1)
			}
			for _, c := range js.Comparisons {
				for est, ci := range map[string]string{"median_ratio": "median_ratio_ci", "hl_ratio": "hl_ratio_ci", "shift_s": "shift_ci_s"} {
					v, ok := c[est].(float64)
					iv, ok2 := c[ci].([]any)
					if !ok || !ok2 || len(iv) != 2 || iv[0] == nil || iv[1] == nil {
						continue
					}
					if lo, hi := iv[0].(float64), iv[1].(float64); !(lo <= v && v <= hi) {
						t.Errorf("json %s = %g outside %s [%g, %g]", est, v, ci, lo, hi)
					}
				}
			}
		})
	}
}
