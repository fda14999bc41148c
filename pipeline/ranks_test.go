package pipeline_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/pipeline"
)

// TestAgree: when any rank fails, every rank returns an error carrying the
// lowest failing rank's message; when none does, every rank returns nil.
func TestAgree(t *testing.T) {
	for _, failing := range [][]int{nil, {2}, {1, 3}, {0}} {
		w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]error, 4)
		err = w.Run(func(r *mpitest.Rank) error {
			var mine error
			for _, f := range failing {
				if f == r.ID() {
					mine = errors.New("disk full on " + string(rune('0'+r.ID())))
				}
			}
			got[r.ID()] = pipeline.Agree(r.Comm(), mine)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for rank, e := range got {
			switch {
			case len(failing) == 0 && e != nil:
				t.Errorf("no failure: rank %d got %v", rank, e)
			case len(failing) > 0 && (e == nil || !strings.Contains(e.Error(), "disk full on "+string(rune('0'+failing[0])))):
				t.Errorf("failing %v: rank %d got %v", failing, rank, e)
			}
		}
	}
}
