package provenance

import (
	"strings"
	"testing"

	"github.com/reprobench/reprobench/mpi/mpitest"
)

func TestParseExpect(t *testing.T) {
	got, err := ParseExpect(" a=1; b = x ;;")
	if err != nil || len(got) != 2 || got[0] != (Expectation{"a", "1"}) || got[1] != (Expectation{"b", "x"}) {
		t.Fatalf("ParseExpect = %v, %v", got, err)
	}
	if got, err := ParseExpect(""); err != nil || got != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"a", "=1", "a=1;b"} {
		if _, err := ParseExpect(bad); err == nil {
			t.Errorf("ParseExpect(%q) accepted", bad)
		}
	}
}

// simMPIT runs Collect and Finish on a simulated world of 2 ranks with
// cvars and expectations and returns rank 0's MPI_T record.
func simMPIT(t *testing.T, cvars map[string]string, expect []Expectation) *MPIT {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1, Cvars: cvars})
	if err != nil {
		t.Fatal(err)
	}
	var m *MPIT
	err = w.Run(func(r *mpitest.Rank) error {
		b, err := Collect(r.Comm(), Options{Simulated: true, Expect: expect})
		if err != nil {
			return err
		}
		rec, err := b.Finish(r.Comm(), "test")
		if err != nil {
			return err
		}
		if r.ID() == 0 {
			m = rec.MPIT
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The simulated path reads the simulated world's MPI_T table (mpitest):
// every variable counted, those set away from their default listed with
// their default, and the launcher's expectations checked against it.
func TestSimulatedMPIT(t *testing.T) {
	m := simMPIT(t, nil, nil)
	if m.Count != 6 || len(m.Differ) != 0 || !strings.HasPrefix(m.DefaultsFrom, "simulated") || m.CheckError() != nil {
		t.Fatalf("defaults: %+v", m)
	}
	m = simMPIT(t, map[string]string{"RBSIM_BCAST_ALGORITHM": "linear"},
		[]Expectation{{"RBSIM_BCAST_ALGORITHM", "2"}, {"RBSIM_BCAST_SEGSIZE", "1024"}})
	if len(m.Differ) != 1 || m.Differ[0].Name != "RBSIM_BCAST_ALGORITHM" || m.Differ[0].Value != "2" || m.Differ[0].Default != "0" ||
		len(m.Differ[0].Enum) != 4 {
		t.Errorf("differ %+v", m.Differ)
	}
	if err := m.CheckError(); err != nil || len(m.Checked) != 2 || !m.Checked[0].OK {
		t.Errorf("checked %+v: %v", m.Checked, err)
	}
	// A setting that did not take effect (the world runs auto) fails.
	m = simMPIT(t, nil, []Expectation{{"RBSIM_BCAST_ALGORITHM", "2"}, {"RBSIM_NOSUCH", "1"}})
	err := m.CheckError()
	if err == nil || !strings.Contains(err.Error(), "RBSIM_BCAST_ALGORITHM read 0, want 2") || !strings.Contains(err.Error(), "RBSIM_NOSUCH read nothing") {
		t.Errorf("CheckError = %v", err)
	}
}
