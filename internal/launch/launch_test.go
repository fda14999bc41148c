package launch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi/mpitest"
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
			got[r.ID()] = launch.Agree(r.Comm(), mine)
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

// TestCheckLaunch: every rank stops when the launcher declared another
// size than the communicator's, also when only one rank's environment
// says so (the ranks agree), and the node-local counts are compared with
// the ranks of this node (mpitest's RanksPerNode).
func TestCheckLaunch(t *testing.T) {
	for _, c := range []struct {
		name string
		env  func(rank int) map[string]string
		bad  bool
	}{
		{"none declared", func(int) map[string]string { return nil }, false},
		{"mpirun 4", func(int) map[string]string {
			return map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
		}, false},
		{"hydra 8", func(int) map[string]string { return map[string]string{"PMI_SIZE": "8", "MPI_LOCALNRANKS": "2"} }, true},
		{"node count wrong", func(int) map[string]string { return map[string]string{"PMI_SIZE": "4", "MPI_LOCALNRANKS": "4"} }, true},
		{"rank 3 only", func(r int) map[string]string {
			if r == 3 {
				return map[string]string{"RB_EXPECT_NP": "2"}
			}
			return nil
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := mpitest.New(mpitest.Config{Ranks: 4, RanksPerNode: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]error, 4)
			err = w.Run(func(r *mpitest.Rank) error {
				env := c.env(r.ID())
				got[r.ID()] = launch.CheckLaunch(r.Comm(), func(k string) string { return env[k] })
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for rank, e := range got {
				if (e != nil) != c.bad || (e != nil && !strings.Contains(e.Error(), "did not join one MPI job")) {
					t.Errorf("rank %d: %v, want refused %v", rank, e, c.bad)
				}
			}
		})
	}
}
