package tune_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/tune"
)

// decided returns decisions for MPI_Allreduce at np 2 over 8 B, 1 KiB and
// 1 MiB where "ring" replaces the default at 1 MiB only, and for
// MPI_Bcast at np 4, 8 B, kept.
func decided(t *testing.T) []tune.Decision {
	t.Helper()
	var s []tune.Sample
	add := func(call string, b int64, np int, cand string, base float64, f func(i int) float64) {
		for i := range 8 {
			s = append(s, tune.Sample{Call: call, Bytes: b, Np: np, Candidate: cand, Mpirun: i, Median: sec(base * f(i))})
		}
	}
	jitter := func(i int) float64 { return 1 + 0.01*float64(i) }
	for _, b := range []int64{8, 1024, 1 << 20} {
		add("MPI_Allreduce", b, 2, "default", 1e-6*float64(b+1), jitter)
		f := jitter
		if b == 1<<20 {
			f = func(i int) float64 { return 0.6 * jitter(i) }
		}
		add("MPI_Allreduce", b, 2, "ring", 1e-6*float64(b+1), func(i int) float64 { return f((i + 3) % 8) })
	}
	add("MPI_Bcast", 8, 4, "default", 2e-6, jitter)
	add("MPI_Bcast", 8, 4, "binomial", 2e-6, func(i int) float64 { return jitter((i + 5) % 8) })
	ds, err := tune.Decide(s, tune.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// ompiLookup reads an Open MPI 4.1 classic rules file the way
// coll_tuned_dynamic_file.c does (integers; '#' skips to the end of the
// line) and returns the algorithm its lookup (coll_tuned_dynamic_rules.c:
// the rule with the largest communicator size ≤ np, then the largest
// message size ≤ bytes) gives for each collective id, np and size.
func ompiLookup(t *testing.T, file string) func(coll, np int, bytes int64) int {
	t.Helper()
	var nums []int64
	sc := bufio.NewScanner(strings.NewReader(file))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatalf("not an integer: %q", f)
			}
			nums = append(nums, v)
		}
	}
	pos := 0
	next := func() int64 {
		if pos >= len(nums) {
			t.Fatal("rules file ends early")
		}
		pos++
		return nums[pos-1]
	}
	type msg struct{ size, alg int64 }
	type com struct {
		size int64
		msgs []msg
	}
	rules := map[int64][]com{}
	ncol := next()
	for range ncol {
		id := next()
		ncom := next()
		for range ncom {
			c := com{size: next()}
			nmsg := next()
			for k := range nmsg {
				m := msg{size: next(), alg: next()}
				next() // fan-in/out
				next() // segment size
				if k == 0 && m.size != 0 {
					t.Fatalf("collective %d comm size %d: first message rule is not for size 0", id, c.size)
				}
				c.msgs = append(c.msgs, m)
			}
			rules[id] = append(rules[id], c)
		}
	}
	if pos != len(nums) {
		t.Fatalf("%d numbers after the last rule", len(nums)-pos)
	}
	return func(coll, np int, b int64) int {
		cs := rules[int64(coll)]
		if len(cs) == 0 {
			return 0
		}
		best := cs[0]
		for _, c := range cs {
			if c.size <= int64(np) {
				best = c
			}
		}
		alg := int64(0)
		for _, m := range best.msgs {
			if m.size <= b {
				alg = m.alg
			}
		}
		return int(alg)
	}
}

func TestWriteOpenMPIRules(t *testing.T) {
	ds := decided(t)
	var buf bytes.Buffer
	resolve := func(call, cand string) (tune.OpenMPIAlgorithm, error) {
		if call == "MPI_Allreduce" && cand == "ring" {
			return tune.OpenMPIAlgorithm{ID: 4}, nil
		}
		return tune.OpenMPIAlgorithm{}, fmt.Errorf("no algorithm %q for %s", cand, call)
	}
	src := tune.Source{Files: []string{"c1-mpirun000.csv"}, Column: "algorithm", Library: "Open MPI 4.1.4"}
	if err := tune.WriteOpenMPIRules(&buf, ds, resolve, src); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	t.Log("\n" + file)
	look := ompiLookup(t, file)
	for _, c := range []struct {
		coll, np int
		bytes    int64
		want     int
	}{
		{2, 2, 1 << 20, 4},   // the replaced cell
		{2, 2, 1<<20 - 1, 0}, // just below: the 1 KiB decision (kept) holds
		{2, 2, 1<<20 + 1, 0}, // above the largest measured size
		{2, 2, 1024, 0}, {2, 2, 8, 0}, {2, 2, 0, 0},
		{2, 1, 1 << 20, 0}, // process counts not measured
		{2, 3, 1 << 20, 0},
		{7, 4, 8, 0}, {11, 2, 8, 0},
	} {
		if got := look(c.coll, c.np, c.bytes); got != c.want {
			t.Errorf("collective %d np %d %d B: algorithm %d, want %d", c.coll, c.np, c.bytes, got, c.want)
		}
	}
	for _, want := range []string{"Data: c1-mpirun000.csv", "ring ratio 0.6", "p_holm", "coll_tuned_dynamic_rules_filename"} {
		if !strings.Contains(file, want) {
			t.Errorf("rules file lacks %q", want)
		}
	}
}

// mpichLookup follows MPICH's selection tree the way csel.c searches it
// for the keys WriteMPICHJSON uses: the first key whose condition holds,
// down to an "algorithm=" key.
func mpichLookup(t *testing.T, root map[string]any, keys map[string][]string, coll string, np int, b int64) string {
	t.Helper()
	node := root["collective="+coll].(map[string]any)
	path := "collective=" + coll
	for {
		var next string
		for _, k := range keys[path] {
			cond, val, _ := strings.Cut(k, "<=")
			lt := false
			if !strings.Contains(k, "<=") {
				cond, val, lt = strings.Cut(k, "<")
			}
			var ok bool
			switch {
			case strings.HasPrefix(k, "algorithm="):
				return strings.TrimPrefix(k, "algorithm=")
			case k == "comm_type=intra", strings.HasSuffix(k, "=any"):
				ok = true
			case k == "comm_type=inter":
				ok = false
			default:
				v, _ := strconv.ParseInt(val, 10, 64)
				x := int64(np)
				if cond == "avg_msg_size" {
					x = b
				}
				ok = x <= v && (!lt || x < v)
			}
			if ok {
				next = k
				break
			}
		}
		if next == "" {
			t.Fatalf("%s: no key matches np %d, %d B", path, np, b)
		}
		node = node[next].(map[string]any)
		path += "/" + next
	}
}

// orderedKeys returns every object's keys in file order, by path.
func orderedKeys(t *testing.T, b []byte) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(b))
	var walk func(path string)
	walk = func(path string) {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		if tok != json.Delim('{') {
			return
		}
		for dec.More() {
			k, _ := dec.Token()
			ks := k.(string)
			out[path] = append(out[path], ks)
			p := ks
			if path != "" {
				p = path + "/" + ks
			}
			walk(p)
		}
		dec.Token()
	}
	walk("")
	return out
}

func TestWriteMPICHJSON(t *testing.T) {
	base := []byte(`{
  "collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}},
  "collective=allreduce": {
    "comm_type=intra": {"avg_msg_size<=8": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                        "avg_msg_size=any": {"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {}}},
    "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}},
  "collective=barrier": {"algorithm=MPIR_Barrier_intra_k_dissemination": {"k=2": {}}}
}`)
	ds := decided(t)
	resolve := func(call, cand string) (string, error) {
		if call == "MPI_Allreduce" && cand == "ring" {
			return "MPIR_Allreduce_intra_ring", nil
		}
		return "", fmt.Errorf("no algorithm %q for %s", cand, call)
	}
	var buf bytes.Buffer
	if err := tune.WriteMPICHJSON(&buf, ds, resolve, base); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + buf.String())
	var root map[string]any
	if err := json.Unmarshal(buf.Bytes(), &root); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if !strings.Contains(buf.String(), `"comm_size<=2"`) {
		t.Error(`no literal "comm_size<=2" key (escaped or missing)`)
	}
	keys := orderedKeys(t, buf.Bytes())
	if got := strings.Join(keys[""], " "); got != "collective=bcast collective=allreduce collective=barrier" {
		t.Errorf("top-level order %q, want base's", got)
	}
	for _, c := range []struct {
		coll  string
		np    int
		bytes int64
		want  string
	}{
		{"allreduce", 2, 1 << 20, "MPIR_Allreduce_intra_ring"},
		{"allreduce", 2, 1<<20 + 1, "MPIR_Allreduce_intra_reduce_scatter_allgather"},
		{"allreduce", 2, 1024, "MPIR_Allreduce_intra_reduce_scatter_allgather"},
		{"allreduce", 2, 8, "MPIR_Allreduce_intra_recursive_doubling"},
		{"allreduce", 3, 1 << 20, "MPIR_Allreduce_intra_reduce_scatter_allgather"},
		{"allreduce", 1, 4, "MPIR_Allreduce_intra_recursive_doubling"},
		{"bcast", 4, 8, "MPIR_Bcast_intra_binomial"},
	} {
		if got := mpichLookup(t, root, keys, c.coll, c.np, c.bytes); got != c.want {
			t.Errorf("%s np %d %d B: %s, want %s", c.coll, c.np, c.bytes, got, c.want)
		}
	}
	if err := tune.WriteMPICHJSON(&buf, ds, resolve, []byte(`{"collective=bcast": {}}`)); err == nil {
		t.Error("a base without the decided collective was accepted")
	}
}

func TestWriteDecisionsJSON(t *testing.T) {
	ds := decided(t)
	var buf bytes.Buffer
	if err := tune.WriteDecisionsJSON(&buf, ds, tune.Source{Files: []string{"a.csv"}, Column: "algorithm"}, "rules.conf"); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Format    string
		Version   int
		Source    tune.Source
		Decisions []struct {
			Call       string
			Chosen     string
			Verdict    string
			Candidates []struct {
				Name  string
				Ratio struct{ Estimate, Lo, Hi *float64 } `json:"ratio_to_default"`
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != tune.DecisionsFormat || got.Version != tune.DecisionsVersion || got.Source.Files[0] != "a.csv" || len(got.Decisions) != len(ds) {
		t.Fatalf("sidecar %+v", got)
	}
	for i, d := range got.Decisions {
		c := d.Candidates[0]
		if d.Chosen != ds[i].Chosen || d.Verdict != ds[i].Verdict.String() || c.Ratio.Lo == nil || c.Ratio.Hi == nil || !(*c.Ratio.Lo <= *c.Ratio.Estimate && *c.Ratio.Estimate <= *c.Ratio.Hi) {
			t.Errorf("decision %d: %+v", i, d)
		}
	}
}

// sec converts float seconds to the nearest nanosecond.
func sec(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
