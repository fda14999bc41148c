package main

import (
	"bytes"
	"strings"
	"testing"
)

// design --skew writes the skew column; levels above 1 crossed with calls
// that have no count vectors are refused before anything is written.
func TestDesignSkew(t *testing.T) {
	var out, errb bytes.Buffer
	err := runDesign(&out, &errb, []string{"--seed", "1", "--mpiruns", "1", "--calls", "MPI_Alltoallv,MPI_Gatherv",
		"--sizes", "1K", "--skew", "1,4"})
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), ",skew\n") || strings.Count(out.String(), ",,4\n") != 2 || strings.Count(out.String(), ",,1\n") != 2 {
		t.Errorf("design lacks the skew levels:\n%s", out.String())
	}
	for _, args := range [][]string{
		{"--calls", "MPI_Alltoallv,MPI_Alltoall", "--skew", "4"},
		{"--calls", "MPI_Sendrecv", "--skew", "2"},
		{"--skew", "2"},
		{"--calls", "MPI_Gatherv", "--skew", "0"},
		{"--calls", "MPI_Gatherv", "--skew", "x"},
	} {
		out.Reset()
		err := runDesign(&out, &errb, append([]string{"--seed", "1", "--sizes", "8"}, args...))
		if err == nil || out.Len() > 0 {
			t.Errorf("%q: accepted (error %v, %d bytes written)", args, err, out.Len())
		}
	}
	// Skew 1 alone is uniform counts: any call.
	out.Reset()
	if err := runDesign(&out, &errb, []string{"--seed", "1", "--sizes", "8", "--calls", "MPI_Bcast", "--skew", "1"}); err != nil {
		t.Errorf("--skew 1 with MPI_Bcast: %v", err)
	}
}
