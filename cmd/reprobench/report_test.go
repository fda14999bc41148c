package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand writes a report of two data sets and of one, and
// refuses bad arguments with a usage error. The page itself is tested in
// package report.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.html")
	var so, se bytes.Buffer
	if err := run(&so, &se, []string{"report", "-o", out, anA, "--", anB}); err != nil {
		t.Fatalf("report: %v\n%s", err, se.String())
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(page, []byte("<!DOCTYPE html>")) || !bytes.Contains(page, []byte(`id="comparison"`)) {
		t.Errorf("%s is not a report with a comparison (%d bytes)", out, len(page))
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("report mode %v, want 0644", st.Mode().Perm())
	}
	abs, _ := filepath.Abs(out)
	if !strings.Contains(so.String(), "report: "+abs+" (") || !strings.Contains(so.String(), "the 12 rules: ") {
		t.Errorf("stdout %q does not name the page and the rules", so.String())
	}
	// The test data are raw files without sidecars: report says so.
	if !strings.Contains(se.String(), "report: not found: sidecar of") {
		t.Errorf("stderr %q does not say the sidecars are missing", se.String())
	}

	so.Reset()
	se.Reset()
	if err := run(&so, &se, []string{"report", "-o", out, anA}); err != nil {
		t.Fatalf("one data set: %v", err)
	}
	if page, _ := os.ReadFile(out); bytes.Contains(page, []byte(`id="comparison"`)) {
		t.Error("one data set, but the page compares")
	}

	for _, args := range [][]string{
		{"report", "-o", out},
		{"report", "-o", out, anA, "--"},
		{"report", "-o", out, "--", anB},
		{"report", "-o", out, anA, "--", anB, "--", anA},
		{"report", "--level", "2", "-o", out, anA},
		{"report", "--alpha", "0", "-o", out, anA},
	} {
		if err := run(&so, &se, args); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	if err := run(&so, &se, []string{"report", "-o", out, "-"}); err == nil || !strings.Contains(err.Error(), "not stdin") {
		t.Errorf("report of stdin: err = %v, want a refusal that says the sidecars are found beside files", err)
	}
}
