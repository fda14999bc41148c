package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gateRun runs compare and returns stdout and the exit status main would
// use (0, 1 for an error, or the gate's status).
func gateRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, append([]string{"compare"}, args...))
	var es *exitStatusError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &es):
		return out.String(), es.status
	}
	t.Fatalf("compare %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	return "", 1
}

// TestCompareGate: b.csv has libA 17-20% slower than a.csv and libB the
// same, in 6+6 mpiruns and 8 groups, so Holm's first step needs
// p ≤ 0.05/8 and 6+6 values reach 1/924.
func TestCompareGate(t *testing.T) {
	dir := t.TempDir()
	junit, verdict := filepath.Join(dir, "g.xml"), filepath.Join(dir, "g.json")
	text, st := gateRun(t, "--fail-if-slower", "10", "--junit", junit, "--verdict", verdict, anA, "--", anB)
	if st != exitRegression || !strings.Contains(text, "verdict: regression: 4 of 8 groups") {
		t.Fatalf("10%%: status %d, want 3 and 4 of 8 groups:\n%s", st, text)
	}
	var v struct {
		Verdict string `json:"verdict"`
		Groups  []struct {
			Decision string   `json:"decision"`
			PHolm    *float64 `json:"p_holm"`
		} `json:"groups"`
	}
	b, err := os.ReadFile(verdict)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Verdict != "regression" || len(v.Groups) != 8 {
		t.Errorf("verdict file: %v %+v", err, v)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Suite struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(x, &j); err != nil || j.Suite.Tests != 8 || j.Suite.Failures != 4 {
		t.Errorf("JUnit file: %v %+v\n%s", err, j, x)
	}
	if text, st := gateRun(t, "--fail-if-slower", "30%", anA, "--", anB); st != 0 || !strings.Contains(text, "verdict: no regression") {
		t.Errorf("30%%: status %d, want 0:\n%s", st, text)
	}
	js, st := gateRun(t, "--fail-if-slower", "10", "--format", "json", anA, "--", anB)
	var doc struct {
		Gate struct {
			Verdict string `json:"verdict"`
		} `json:"gate"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || st != exitRegression || doc.Gate.Verdict != "regression" {
		t.Errorf("--format json: status %d err %v gate %+v", st, err, doc.Gate)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", "--junit", junit, anA, "--", anB}); !errors.Is(err, errUsage) {
		t.Errorf("--junit without --fail-if-slower: %v, want a usage error", err)
	}
	if err := run(&out, &errb, []string{"compare", "--fail-if-slower", "-3", anA, "--", anB}); !errors.Is(err, errUsage) {
		t.Errorf("--fail-if-slower -3: %v, want a usage error", err)
	}
}

// TestCompareGateOneMpirun: with one mpirun a side the table marks rows
// (obs) instead of stars, and the gate cannot decide (status 4) and says
// how many mpiruns it needs.
func TestCompareGateOneMpirun(t *testing.T) {
	dir := t.TempDir()
	one := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		out := []string{lines[0]}
		for _, l := range lines[1:] {
			if strings.Split(l, ",")[1] == "0" {
				out = append(out, l)
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := one(anA, "a1.csv"), one(anB, "b1.csv")
	text, st := gateRun(t, "--fail-if-slower", "10", a, "--", b)
	if st != exitUndecided || !strings.Contains(text, "need 5 mpiruns per side") {
		t.Errorf("1+1 mpiruns: status %d, want 4 and 'need 5 mpiruns per side':\n%s", st, text)
	}
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "MPI_") && strings.Contains(l, "µs") {
			rows++
			if strings.Contains(l, "*") || !strings.HasSuffix(l, "(obs)") {
				t.Errorf("row with one mpirun a side not marked (obs) or with stars: %s", l)
			}
		}
	}
	if rows != 8 || !strings.Contains(text, "(obs): a side had one mpirun") {
		t.Errorf("1+1 mpiruns: want (obs) and no stars:\n%s", text)
	}
}
