package design

import (
	"bytes"
	"errors"
	"github.com/reprobench/reprobench/factor"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func testFactors() Factors {
	return Factors{
		Calls:       []string{"MPI_Bcast", "MPI_Allreduce", "pingpong"},
		MsizesBytes: []int{8, 64, 1024, 65536},
		Nps:         []int{2, 4},
		Labels:      []Factor{{Name: "impl", Levels: []string{"a", "b"}}},
	}
}

func TestFactorialCounts(t *testing.T) {
	for _, tc := range []struct {
		f                     Factors
		mpiruns, reps, points int
	}{
		{testFactors(), 5, 1, 3 * 4 * 2 * 2},
		{testFactors(), 3, 4, 3 * 4 * 2 * 2},
		{Factors{}, 2, 3, 1},
		{Factors{Calls: []string{"MPI_Bcast"}, Levels: levels(factor.Window, "0.0001", "0.001").with(factor.Cache, "warm", "cold")}, 1, 1, 4},
	} {
		d, err := Generate(Plan{Factors: tc.f, Mpiruns: tc.mpiruns, Replicates: tc.reps, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := tc.f.Points(); got != tc.points {
			t.Errorf("Points = %d, want %d", got, tc.points)
		}
		if got, want := len(d.Experiments), tc.points*tc.reps*tc.mpiruns; got != want {
			t.Errorf("%d experiments, want %d", got, want)
		}
		if got := d.Mpiruns(); len(got) != tc.mpiruns {
			t.Errorf("mpiruns %v, want %d", got, tc.mpiruns)
		}
		// Every mpirun holds every combination exactly reps times, with the
		// same configuration for the same exp.
		byExp := map[int]Experiment{}
		for _, m := range d.Mpiruns() {
			count := map[string]int{}
			exps := map[int]bool{}
			for _, e := range d.Mpirun(m) {
				if exps[e.Exp] {
					t.Fatalf("mpirun %d: exp %d twice", m, e.Exp)
				}
				exps[e.Exp] = true
				key := configKey(e)
				count[key]++
				if prev, ok := byExp[e.Exp]; ok && configKey(prev) != key {
					t.Fatalf("exp %d is %s in one mpirun and %s in another", e.Exp, configKey(prev), key)
				}
				byExp[e.Exp] = e
			}
			if len(count) != tc.points {
				t.Errorf("mpirun %d: %d distinct combinations, want %d", m, len(count), tc.points)
			}
			for k, n := range count {
				if n != tc.reps {
					t.Errorf("mpirun %d: %s %d times, want %d", m, k, n, tc.reps)
				}
			}
		}
	}
}

func configKey(e Experiment) string {
	e.Mpirun, e.Exp = 0, 0
	var b bytes.Buffer
	d := &Design{Experiments: []Experiment{e}}
	if err := Write(&b, d); err != nil {
		panic(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	return lines[len(lines)-1]
}

func order(d *Design, m int) []int {
	var o []int
	for _, e := range d.Mpirun(m) {
		o = append(o, e.Exp)
	}
	return o
}

func TestShuffleReproducibleAndDifferent(t *testing.T) {
	p := Plan{Factors: testFactors(), Mpiruns: 10, Replicates: 2, Seed: 42}
	d1, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := Generate(p)
	if !reflect.DeepEqual(d1, d2) {
		t.Fatal("same seed gave different designs")
	}
	var b1, b2 bytes.Buffer
	Write(&b1, d1)
	Write(&b2, d2)
	if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Fatal("same seed gave different files")
	}
	// Different mpiruns: different orders (96 experiments: a collision has
	// probability 1/96!).
	for m := 1; m < p.Mpiruns; m++ {
		if slices.Equal(order(d1, 0), order(d1, m)) {
			t.Errorf("mpirun %d has the order of mpirun 0", m)
		}
	}
	// Not the identity order.
	if slices.IsSorted(order(d1, 0)) {
		t.Error("mpirun 0 is not shuffled")
	}
	p.Seed = 43
	d3, _ := Generate(p)
	if slices.Equal(order(d1, 0), order(d3, 0)) {
		t.Error("seeds 42 and 43 give the same order")
	}
}

// The shuffle is uniform: over many seeds each experiment lands in each
// position about equally often.
func TestShuffleUniform(t *testing.T) {
	const n, seeds = 4, 24000
	var counts [n][n]int
	for s := range uint64(seeds) {
		d, err := Generate(Plan{Factors: Factors{Nreps: []int{1, 2, 3, 4}}, Mpiruns: 1, Seed: s})
		if err != nil {
			t.Fatal(err)
		}
		for pos, e := range d.Experiments {
			counts[e.Exp][pos]++
		}
	}
	// Chi-square with 9 degrees of freedom over the 4×4 table (rows are
	// dependent, so this is conservative); 99.9% quantile is 27.9.
	chi := 0.0
	exp := float64(seeds) / n
	for i := range counts {
		for j := range counts[i] {
			d := float64(counts[i][j]) - exp
			chi += d * d / exp
		}
	}
	if chi > 27.9 {
		t.Errorf("position counts %v: chi² %.1f > 27.9", counts, chi)
	}
}

// The order for a seed is pinned: it depends only on PCG-DXSM and our own
// shuffle, so it must never change (a design regenerated from a published
// seed must be the same).
func TestShufflePinned(t *testing.T) {
	d, err := Generate(Plan{Factors: Factors{Nreps: []int{1, 2, 3, 4, 5, 6}}, Mpiruns: 2, Seed: 2024})
	if err != nil {
		t.Fatal(err)
	}
	got := [][]int{order(d, 0), order(d, 1)}
	want := pinnedOrder
	if !reflect.DeepEqual(got, want) {
		t.Errorf("orders %v, want %v", got, want)
	}
}

func TestLogUniformSizes(t *testing.T) {
	const a, b, n = 1, 1000000, 2000
	s, ok := LogUniformSizes(a, b, n, 7)
	if !ok || len(s) != n {
		t.Fatalf("got %d sizes, ok %v", len(s), ok)
	}
	if !slices.IsSorted(s) {
		t.Error("not sorted")
	}
	for i, x := range s {
		if x < a || x > b {
			t.Fatalf("size %d out of [%d, %d]", x, a, b)
		}
		if i > 0 && s[i-1] == x {
			t.Fatalf("duplicate %d", x)
		}
	}
	// Roughly uniform in log10: over [1e3, 1e9] each of the 6 decades
	// holds about n/6 of 1200 sizes (≥ 9000 integers per decade, so
	// redrawn duplicates hardly bias it). Binomial sd of a count: 12.9,
	// so ±25% (50) is about 4 sd.
	u, ok := LogUniformSizes(1000, 1000000000, 1200, 11)
	if !ok {
		t.Fatal("LogUniformSizes(1e3, 1e9, 1200) failed")
	}
	var dec [6]int
	for _, x := range u {
		dec[min(int(math.Log10(float64(x)))-3, 5)]++
	}
	for d, c := range dec {
		if c < 150 || c > 250 {
			t.Errorf("decade 1e%d holds %d of 1200 sizes, want about 200", d+3, c)
		}
	}
	// Same seed, same sizes; another seed, others.
	s2, _ := LogUniformSizes(a, b, n, 7)
	s3, _ := LogUniformSizes(a, b, n, 8)
	if !slices.Equal(s, s2) || slices.Equal(s, s3) {
		t.Error("sizes do not follow the seed")
	}
	// Bounds: a == b, and every integer of a small range.
	if s, ok := LogUniformSizes(5, 5, 1, 1); !ok || !slices.Equal(s, []int{5}) {
		t.Errorf("[5,5]: %v %v", s, ok)
	}
	if s, ok := LogUniformSizes(10, 14, 5, 1); !ok || !slices.Equal(s, []int{10, 11, 12, 13, 14}) {
		t.Errorf("[10,14]×5: %v %v", s, ok)
	}
	m, ok := logUniformMultiples(1, 1<<20, 50, 8, 3)
	if !ok || len(m) != 50 || m[0] < 8 || m[49] > 1<<20 {
		t.Errorf("multiples of 8: %v %v", m, ok)
	}
	for _, x := range m {
		if x%8 != 0 {
			t.Errorf("%d is not a multiple of 8", x)
		}
	}
	if _, ok := logUniformMultiples(9, 15, 1, 8, 1); ok {
		t.Error("no multiple of 8 in [9, 15], but ok")
	}
	for _, bad := range [][3]int{{0, 10, 1}, {10, 5, 1}, {1, 3, 4}} {
		if _, ok := LogUniformSizes(bad[0], bad[1], bad[2], 1); ok {
			t.Errorf("LogUniformSizes%v accepted", bad)
		}
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []int
	}{
		{"8,64,1024", []int{8, 64, 1024}},
		{"1K, 2M", []int{1024, 2 << 20}},
		{"pow2:1..1M", func() []int {
			var p []int
			for x := 1; x <= 1<<20; x *= 2 {
				p = append(p, x)
			}
			return p
		}()},
		{"pow2:3..20", []int{4, 8, 16}},
	} {
		got, err := ParseSizes(tc.spec, 1)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
	got, err := ParseSizes("logu:1..1000000:20", 99)
	want, _ := LogUniformSizes(1, 1000000, 20, 99)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("logu: %v %v", got, err)
	}
	for _, bad := range []string{"", "0", "8,8", "x", "pow2:5..6", "pow2:1..8:3", "logu:1..10", "logu:1..3:4", "logu:1..10:0", "logu:1..10:1:0", "logu:9..15:1:8", "foo:1..2", "pow2:9..1", "-1"} {
		if _, err := ParseSizes(bad, 1); err == nil {
			t.Errorf("ParseSizes(%q) accepted", bad)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, f := range []Factors{
		{MsizesBytes: []int{0}},
		{Calls: []string{"a", "a"}},
		{Calls: []string{""}},
		{Levels: levels(factor.Window, "-0.000001")},
		{Levels: levels(factor.Window, "0")},
		{Levels: levels(factor.Window, "0.001", "1e-3")},
		{Levels: levels(factor.Algorithm, "ring")},
		{Labels: []Factor{{Name: "bad key", Levels: []string{"x"}}}},
		{Labels: []Factor{{Name: "k", Levels: nil}}},
		{Labels: []Factor{{Name: "k", Levels: []string{"x"}}, {Name: "k", Levels: []string{"y"}}}},
	} {
		if _, err := Generate(Plan{Factors: f, Mpiruns: 1}); err == nil {
			t.Errorf("Generate accepted %+v", f)
		}
	}
	if _, err := Generate(Plan{Mpiruns: 0}); err == nil {
		t.Error("Generate accepted 0 mpiruns")
	}
}

func TestRoundTrip(t *testing.T) {
	f := testFactors()
	f.Levels = levels(factor.Window, "0.0001", "0.00125").with(factor.ClockSync, "hca3", "skampi:exchanges=10,fitpoints=20")
	f.Labels = append(f.Labels, Factor{Name: "note", Levels: []string{"with, comma", "with \"quote\"", " lead"}})
	d, err := Generate(Plan{Factors: f, Mpiruns: 3, Replicates: 2, Seed: 1 << 63, Comments: []string{" hello"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b.Bytes()), "rt.csv", Vocabulary{Calls: f.Calls})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Experiments {
		if got.Experiments[i].File != "rt.csv" || got.Experiments[i].Line != i+5 {
			t.Fatalf("row %d: at %s:%d", i, got.Experiments[i].File, got.Experiments[i].Line)
		}
		got.Experiments[i].File, got.Experiments[i].Line = "", 0
	}
	if !reflect.DeepEqual(got, d) {
		t.Errorf("round trip differs:\n%+v\n%+v", got.Experiments[:2], d.Experiments[:2])
	}
}

func TestReadErrors(t *testing.T) {
	voc := Vocabulary{Calls: []string{"MPI_Bcast"}, Datatypes: []string{"byte"}, Levels: map[factor.ID][]string{
		factor.ProcSync: {"barrier"}, factor.RuntimeType: {"local"}, factor.Cache: {"warm"}}}
	for _, tc := range []struct{ in, want string }{
		{"", "f.csv:1: no header row"},
		{"# seed=1\n", "f.csv:2: no header row"},
		{"mpirun,exp,bogus\n", "f.csv:1: column 3 (bogus): unknown column"},
		{"mpirun,exp,call,call\n", "f.csv:1: column 4 (call): duplicate column"},
		{"mpirun,call\n", `f.csv:1: missing required column "exp"`},
		{"mpirun,exp,label:\n", "f.csv:1: column 3 (label:): empty label key"},
		{"mpirun,exp,label:a b\n", "column 3 (label:a b): label key"},
		{"# x\nmpirun,exp\n0,0\n1,x\n", `f.csv:4: column 2 (exp): "x" is not an integer`},
		{"mpirun,exp\n,0\n", "f.csv:2: column 1 (mpirun): mpirun must not be empty"},
		{"mpirun,exp,np\n0,0,-2\n", "f.csv:2: column 3 (np): -2 is negative"},
		{"mpirun,exp,msize_bytes\n0,0,1e3\n", `column 3 (msize_bytes): "1e3" is not an integer`},
		{"mpirun,exp,nrep\n0,0,99999999999999999999\n", "column 3 (nrep)"},
		{"mpirun,exp,call\n0,0,MPI_Foo\n", `f.csv:2: column 3 (call): "MPI_Foo" is not one of [MPI_Bcast]`},
		{"mpirun,exp,datatype\n0,0,int\n", "column 3 (datatype)"},
		{"mpirun,exp,procsync\n0,0,window\n", "column 3 (procsync)"},
		{"mpirun,exp,runtime_type\n0,0,global\n", "column 3 (runtime_type)"},
		{"mpirun,exp,cache\n0,0,cold\n", "column 3 (cache)"},
		{"mpirun,exp,window_s\n0,0,-1\n", "column 3 (window_s): -1 is not"},
		{"mpirun,exp,window_s\n0,0,NaN\n", "column 3 (window_s): NaN is not"},
		{"mpirun,exp,window_s\n0,0,1ms\n", `column 3 (window_s): "1ms" is not a number`},
		{"mpirun,exp,window_s\n0,0,1e300\n", "column 3 (window_s): 1e+300 is not"},
		{"mpirun,exp,window_s\n0,0,1e-12\n", "column 3 (window_s): 1e-12 s is below a nanosecond"},
		{"mpirun,exp\n0,0\n0,0\n", "f.csv:3: mpirun 0 exp 0 already defined on line 2"},
		{"mpirun,exp\n0,0,1\n", "f.csv:2: 3 fields, but the header has 2"},
		{"mpirun,exp\n0,\"0\n", "f.csv:2"},
		{"# seed=x\nmpirun,exp\n", "f.csv:1: bad seed"},
		{"# seed=1\n# seed=2\nmpirun,exp\n", "f.csv:2: second seed line"},
		{"mpirun,exp,label:k\n0,0,\"a\nb\"\n", "column 3 (label:k): line break"},
	} {
		_, err := Read(strings.NewReader(tc.in), "f.csv", voc)
		if err == nil {
			t.Errorf("%q: accepted", tc.in)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %q, want it to contain %q", tc.in, err, tc.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "f.csv" || pe.Line < 1 {
			t.Errorf("%q: %T %v is not a located *ParseError", tc.in, err, err)
		}
	}
}

func TestReadAccepts(t *testing.T) {
	in := "\uFEFF# reprobench design v1\r\n# seed=18446744073709551615\r\n# note\r\n\r\n" +
		"exp, mpirun,call,label:impl\r\n3,1,MPI_Bcast,x\r\n# a comment\r\n1,1,,\r\n0,0,MPI_Bcast,\r\n"
	d, err := Read(strings.NewReader(in), "ok.csv", Vocabulary{Calls: []string{"MPI_Bcast"}})
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasSeed || d.Seed != math.MaxUint64 || !slices.Equal(d.Comments, []string{" note"}) {
		t.Errorf("seed %d %v, comments %q", d.Seed, d.HasSeed, d.Comments)
	}
	if got := order(d, 1); !slices.Equal(got, []int{3, 1}) {
		t.Errorf("mpirun 1 order %v", got)
	}
	if e := d.Experiments[0]; e.Line != 6 || e.Labels["impl"] != "x" || e.Call != "MPI_Bcast" {
		t.Errorf("first row %+v", e)
	}
	if e := d.Experiments[1]; e.Labels != nil || e.Line != 8 {
		t.Errorf("second row %+v", e)
	}
	if !slices.Equal(d.Mpiruns(), []int{0, 1}) || !slices.Equal(d.LabelKeys(), []string{"impl"}) {
		t.Errorf("mpiruns %v labels %v", d.Mpiruns(), d.LabelKeys())
	}
}

func TestRunSeed(t *testing.T) {
	if RunSeed(1, 0) == RunSeed(1, 1) || RunSeed(1, 0) == RunSeed(2, 0) {
		t.Error("RunSeed does not depend on seed and mpirun as it should")
	}
}

func TestCountCPUList(t *testing.T) {
	for s, want := range map[string]int{"0": 1, "0-3": 4, "0-3,8,10-11": 7, "x": 0, "3-1": 0} {
		if got := countCPUList(s); got != want {
			t.Errorf("countCPUList(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestCollectEnvironment(t *testing.T) {
	t.Setenv("OMPI_MCA_test_var", "1")
	t.Setenv("SLURM_JOB_ID", "7")
	t.Setenv("CGO_CFLAGS", "-O2")
	e := CollectEnvironment()
	if e.GoVersion == "" || e.GOOS == "" || e.CPUs < 1 || e.TimeUTC == "" || e.Hostname == "" {
		t.Errorf("missing basics: %+v", e)
	}
	if e.MPIEnv["OMPI_MCA_test_var"] != "1" || e.MPIEnv["SLURM_JOB_ID"] != "7" || e.CgoEnv["CGO_CFLAGS"] != "-O2" {
		t.Errorf("environment variables not recorded: %v %v", e.MPIEnv, e.CgoEnv)
	}
	if e.Kernel == "" || !strings.HasPrefix(e.Kernel, "Linux") {
		t.Errorf("kernel %q", e.Kernel)
	}
	t.Logf("%+v", e)
}

// The noise_guard column: generated as a factor, written only
// when some row sets it, read back, and refused with another value.
func TestNoiseGuardColumn(t *testing.T) {
	f := testFactors()
	f.Levels[factor.NoiseGuard] = []string{"on", "off"}
	d, err := Generate(Plan{Factors: f, Mpiruns: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	on := 0
	for _, e := range d.Experiments {
		if e.Factors.Cell(factor.NoiseGuard) == "on" {
			on++
		}
	}
	if on != len(d.Experiments)/2 {
		t.Errorf("%d of %d rows on, want half", on, len(d.Experiments))
	}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(b.Bytes()), "ng.csv", Vocabulary{Calls: f.Calls})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got.Experiments {
		if got.Experiments[i].Factors != d.Experiments[i].Factors {
			t.Fatalf("row %d: noise_guard %q read back as %q", i, d.Experiments[i].Factors.Cell(factor.NoiseGuard), got.Experiments[i].Factors.Cell(factor.NoiseGuard))
		}
	}
	// Without the factor the column is not written: designs stay as they were.
	plain, err := Generate(Plan{Factors: testFactors(), Mpiruns: 1, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Write(&b, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "noise_guard") {
		t.Error("noise_guard column written without the factor")
	}
	bad := "# reprobench design v1\nmpirun,exp,call,noise_guard\n0,0,MPI_Bcast,maybe\n"
	if _, err := Read(strings.NewReader(bad), "bad.csv", Vocabulary{}); err == nil || !strings.Contains(err.Error(), "maybe") {
		t.Errorf("noise_guard maybe: %v, want a refusal", err)
	}
	f.Levels[factor.NoiseGuard] = []string{"yes"}
	if _, err := Generate(Plan{Factors: f, Mpiruns: 1}); err == nil {
		t.Error("noise guard level yes accepted")
	}
}

// TestWindowRounds: every window of 1–1999 µs written in seconds in a
// design file becomes exactly that many µs (truncation made 43 of them 1 ns
// short, and the raw data then said window_s=0.000129999), and is written
// back as it was read.
func TestWindowRounds(t *testing.T) {
	for us := 1; us < 2000; us++ {
		text := strconv.FormatFloat(float64(us)/1e6, 'g', -1, 64)
		d, err := Read(strings.NewReader("mpirun,exp,window_s\n0,0,"+text+"\n"), "f.csv", Vocabulary{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		e := d.Experiments[0]
		if w, _ := e.Factors.Get(factor.Window); time.Duration(w) != time.Duration(us)*time.Microsecond {
			t.Errorf("window_s %s read as %v, want %dµs", text, time.Duration(w), us)
		}
		if back := e.Factors.Cell(factor.Window); back != text {
			t.Errorf("window_s %s written back as %s", text, back)
		}
	}
}

// factorLevels are Factors.Levels built in a literal.
type factorLevels [factor.NumIDs][]string

// levels returns factorLevels with id's levels l.
func levels(id factor.ID, l ...string) factorLevels {
	var x factorLevels
	x[id] = l
	return x
}

// with returns x with id's levels l.
func (x factorLevels) with(id factor.ID, l ...string) factorLevels {
	x[id] = l
	return x
}
