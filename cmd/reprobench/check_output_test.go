package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeWrongResults: rows with errorcode bit 8 (run --check found
// the result wrong) are counted per group in text, CSV and JSON.
func TestAnalyzeWrongResults(t *testing.T) {
	b, err := os.ReadFile(anA)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// lines[1] and [2] are MPI_Allreduce 8 B, mpi_lib=libA: errorcode 8 and 9.
	for i, code := range map[int]string{1: "8", 2: "9"} {
		f := strings.Split(lines[i], ",")
		f[10] = code
		lines[i] = strings.Join(f, ",")
	}
	path := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", path}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "WRONG RESULTS: 2 rows") || !strings.Contains(out.String(), "msize=8/np=4/MPI_INT/mpi_lib=libA 2") {
		t.Errorf("text does not count 2 wrong results in MPI_Allreduce 8 B libA:\n%s", out.String())
	}
	total := 0
	for _, g := range wrongResultGroups(t, path) {
		total += g.WrongResults
		if g.WrongResults > 0 && (g.Call != "MPI_Allreduce" || g.Msize != 8 || !strings.Contains(g.Labels, "libA")) {
			t.Errorf("wrong results in group %+v", g)
		}
	}
	if total != 2 {
		t.Errorf("JSON: %d wrong results, want 2", total)
	}
}

// wrongGroup is one group of analyze's JSON, as far as the checks of
// run --check read it.
type wrongGroup struct {
	Call         string `json:"call"`
	Msize        int    `json:"msize_bytes"`
	Labels       string `json:"labels"`
	WrongResults int    `json:"wrong_results"`
}

// wrongResultGroups runs analyze --format json on the raw data at path and
// returns its groups.
func wrongResultGroups(t *testing.T, path string) []wrongGroup {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--format", "json", path}); err != nil {
		t.Fatalf("analyze %s: %v\n%s", path, err, errb.String())
	}
	var doc struct {
		Groups []wrongGroup `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Groups
}
