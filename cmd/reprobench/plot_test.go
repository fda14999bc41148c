package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestPlotKinds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		kind string
		args []string
	}{
		{"box", []string{anA}},
		{"violin", []string{"--group", "msize=8/", anA}},
		{"hist", []string{"--group", "Bcast/msize=8/", anA}},
		{"qq", []string{anA}},
		{"acf", []string{anA}},
		{"drift", []string{anA}},
		{"compare", []string{anA, "--", anB}},
		{"compare", []string{"--by", "mpi_lib", anA}},
		{"qreg", []string{"--by", "mpi_lib", "--group", "Bcast/msize=8/", anA}},
		{"qreg", []string{anA, "--", anB}},
	} {
		for _, ext := range []string{".png", ".svg"} {
			out := filepath.Join(dir, c.kind+ext)
			args := append([]string{"plot", "--kind", c.kind, "-o", out}, c.args...)
			var so, se bytes.Buffer
			if err := run(&so, &se, args); err != nil {
				t.Errorf("%v: %v", args, err)
				continue
			}
			st, err := os.Stat(out)
			if err != nil || st.Size() < 1000 {
				t.Errorf("%v: output %v (%v)", args, st, err)
			}
			head, _ := os.ReadFile(out)
			if ext == ".png" && !bytes.HasPrefix(head, []byte("\x89PNG")) {
				t.Errorf("%s is not a PNG", out)
			}
			if ext == ".svg" && !bytes.Contains(head[:min(len(head), 200)], []byte("<svg")) {
				t.Errorf("%s is not an SVG", out)
			}
		}
	}
}
