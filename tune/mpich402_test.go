package tune

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mpich402Algorithms are the algorithm keys of MPI_Allreduce, MPI_Bcast
// and MPI_Reduce that MPICH 4.0.2's MPIR-level parser accepts
// (src/mpi/coll/src/csel_container.c at the v4.0.2 tag); it aborts at
// MPI_Init on any other "algorithm=MPIR_…" key.
var mpich402Algorithms = []string{
	"MPIR_Allreduce_allcomm_nb", "MPIR_Allreduce_inter_reduce_exchange_bcast", "MPIR_Allreduce_intra_recursive_doubling",
	"MPIR_Allreduce_intra_reduce_scatter_allgather", "MPIR_Allreduce_intra_smp",
	"MPIR_Bcast_allcomm_nb", "MPIR_Bcast_inter_remote_send_local_bcast", "MPIR_Bcast_intra_binomial",
	"MPIR_Bcast_intra_scatter_recursive_doubling_allgather", "MPIR_Bcast_intra_scatter_ring_allgather", "MPIR_Bcast_intra_smp",
	"MPIR_Reduce_allcomm_nb", "MPIR_Reduce_inter_local_reduce_remote_send", "MPIR_Reduce_intra_binomial",
	"MPIR_Reduce_intra_reduce_scatter_gather", "MPIR_Reduce_intra_smp",
}

// mpich402Key is the key grammar of MPICH 4.0.2's selection parser
// (csel.c, parse_json_tree): the operator keys it knows; any other key
// is an assertion failure at MPI_Init.
var mpich402Key = regexp.MustCompile(`^(` +
	`algorithm=\w+|composition=\w+|collective=\w+|comm_type=(intra|inter)|is_multi_threaded=(yes|no)|` +
	`comm_size=(pow2|node_comm_size|any)|comm_size<=?\d+|count<=\d+|count<pow2|count=any|` +
	`avg_msg_size=any|avg_msg_size<=?\d+|total_msg_size=any|total_msg_size<=?\d+|` +
	`is_(commutative|sendbuf_inplace|op_built_in|block_regular|node_consecutive)=(yes|no)|` +
	`comm_avg_ppn<=\d+|comm_hierarchy=(parent|node_roots|node|flat|any)|k=\d+|[a-z_]+=\d+)$`)

// installedBase returns the installed MPICH library's MPIR selection
// (InstalledMPICHBase); without MPICH the test is skipped, unless
// RB_REQUIRE_MPI=1 makes that a failure.
func installedBase(t *testing.T) []byte {
	t.Helper()
	b, p, err := InstalledMPICHBase()
	if err != nil {
		if os.Getenv("RB_REQUIRE_MPI") == "1" {
			t.Fatalf("RB_REQUIRE_MPI=1: %v", err)
		}
		t.Skipf("no MPICH library: %v", err)
	}
	t.Logf("base from %s (%d bytes)", p, len(b))
	return b
}

// TestInstalledMPICHBase: the selection read from the installed library is
// the MPIR level's (every algorithm leaf an MPIR_ function, the three
// collectives the writer edits present), not the CH4 or POSIX level's
// that the same file holds; a file without one is refused.
func TestInstalledMPICHBase(t *testing.T) {
	b := installedBase(t)
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"collective=allreduce", "collective=bcast", "collective=reduce"} {
		if _, ok := root[k]; !ok {
			t.Errorf("the base has no %q", k)
		}
	}
	if n := strings.Count(string(b), `"algorithm=MPIDI_`); n != 0 {
		t.Errorf("the base names %d device-level algorithms", n)
	}
	f := filepath.Join(t.TempDir(), "lib.so")
	posix := `{"collective=bcast":{"algorithm=MPIDI_POSIX_mpi_bcast_release_gather":{}}}`
	if err := os.WriteFile(f, []byte("\x00"+posix+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mpichBaseFromLibrary(f); err == nil {
		t.Error("a file holding only a device-level selection gave a base")
	}
	mpir := `{"collective=bcast":{"algorithm=MPIR_Bcast_intra_binomial":{}}}`
	if err := os.WriteFile(f, []byte("junk\x00"+posix+"\x00"+mpir+"\x00junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := mpichBaseFromLibrary(f); err != nil || string(got) != mpir {
		t.Errorf("mpichBaseFromLibrary = %q, %v; want the MPIR object", got, err)
	}
}

// TestMPICHSelectionAgainst402: with the installed MPICH's own MPIR
// selection as the base (4.0.2 here), a file choosing each of the catalogue's MPICH candidates at
// some cell has only keys MPICH 4.0.2's parser knows, names only
// algorithms it knows, and changes nothing of the base but the decided
// collectives' intra-communicator trees. Each candidate's resolved name
// must be one of 4.0.2's: a misspelt name (MPICH aborts at MPI_Init on
// it) fails here.
func TestMPICHSelectionAgainst402(t *testing.T) {
	base := installedBase(t)
	var baseRoot map[string]any
	if err := json.Unmarshal(base, &baseRoot); err != nil {
		t.Fatal(err)
	}
	cat := CatalogFor(MPICH)
	resolve, err := cat.MPICHResolver()
	if err != nil {
		t.Fatal(err)
	}
	var ds []Decision
	for _, col := range cat.Collectives {
		cands, err := cat.Candidates(col.Call, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cands[1:] {
			name, err := resolve(col.Call, c.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(mpich402Algorithms, name) {
				t.Errorf("%s %s: %s is not an algorithm of MPICH 4.0.2", col.Call, c.Name, name)
			}
			ds = append(ds, Decision{Cell: Cell{Call: col.Call, Bytes: int64(8) << (4 * i), Np: 2}, Default: DefaultCandidate, Chosen: c.Name})
		}
		ds = append(ds, Decision{Cell: Cell{Call: col.Call, Bytes: 4 << 20, Np: 2}, Default: DefaultCandidate, Chosen: DefaultCandidate})
	}
	var buf bytes.Buffer
	if err := WriteMPICHJSON(&buf, ds, resolve, base); err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(buf.Bytes(), &root); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, n map[string]any)
	chosen := map[string]bool{}
	walk = func(path string, n map[string]any) {
		for k, v := range n {
			if !mpich402Key.MatchString(k) {
				t.Errorf("%s: key %q is not in MPICH 4.0.2's grammar", path, k)
			}
			if a, ok := strings.CutPrefix(k, "algorithm="); ok {
				if strings.HasPrefix(a, "MPIR_Allreduce_") || strings.HasPrefix(a, "MPIR_Bcast_") || strings.HasPrefix(a, "MPIR_Reduce_") &&
					!strings.HasPrefix(a, "MPIR_Reduce_scatter") {
					if !slices.Contains(mpich402Algorithms, a) {
						t.Errorf("%s: %s is not an algorithm of MPICH 4.0.2", path, a)
					}
				}
				chosen[a] = true
			}
			if m, ok := v.(map[string]any); ok {
				walk(path+"/"+k, m)
			}
		}
	}
	walk("", root)
	for _, d := range ds {
		if d.Chosen == DefaultCandidate {
			continue
		}
		name, _ := resolve(d.Call, d.Chosen)
		if !chosen[name] {
			t.Errorf("%s: %s missing from the file", d.Cell, name)
		}
	}
	for k, v := range baseRoot {
		if k == "collective=allreduce" || k == "collective=bcast" || k == "collective=reduce" {
			inter := v.(map[string]any)["comm_type=inter"]
			got := root[k].(map[string]any)["comm_type=inter"]
			if !jsonEqual(inter, got) {
				t.Errorf("%s: the inter-communicator tree changed", k)
			}
			continue
		}
		if !jsonEqual(v, root[k]) {
			t.Errorf("%s changed", k)
		}
	}
	env := MPICHDeviceOff(ds)
	want := []string{"MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0", "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0", "MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0",
		"REPROBENCH_EXPECT_CVARS=MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0;MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0;MPIR_CVAR_REDUCE_DEVICE_COLLECTIVE=0"}
	if !slices.Equal(env, want) {
		t.Errorf("device-collective environment %q, want %q", env, want)
	}
	if env := MPICHDeviceOff(ds[len(ds)-1:]); env != nil {
		t.Errorf("a kept default turned the device collective off: %q", env)
	}
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
