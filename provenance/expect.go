package provenance

import (
	"fmt"
	"os"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// ExpectEnv names the environment variable through which a launcher asks
// a run to check, after its measurements, that control variables read
// given values through MPI_T: "cvar=value" items separated by ';' (the
// read-back of tune.Candidate.Expect). A setting that did not take effect
// (a misspelt variable, a value the library refused or replaced) then
// fails the run instead of mislabelling its data.
const ExpectEnv = "REPROBENCH_EXPECT_CVARS"

// Expectation is one control variable's expected value.
type Expectation struct {
	Cvar, Value string
}

// ParseExpect reads ExpectEnv's syntax; "" is no expectation.
func ParseExpect(s string) ([]Expectation, error) {
	var out []Expectation
	for _, item := range strings.Split(s, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("provenance: %s: %q: want cvar=value", ExpectEnv, item)
		}
		out = append(out, Expectation{Cvar: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return out, nil
}

// CvarCheck is the read-back of one expected control variable.
type CvarCheck struct {
	Name string `json:"name"`
	Want string `json:"want"`
	// Got is the value MPI_T read after the measurements; "" when the
	// variable was not found or MPI_T could not be read.
	Got string `json:"got"`
	OK  bool   `json:"ok"`
}

// checkCvars compares the expectations with the values read (vs).
func checkCvars(exp []Expectation, vs []mpi.ControlVariable) []CvarCheck {
	val := map[string]string{}
	for _, v := range vs {
		val[v.Name] = v.Value
	}
	out := make([]CvarCheck, len(exp))
	for i, e := range exp {
		got := val[e.Cvar]
		out[i] = CvarCheck{Name: e.Cvar, Want: e.Value, Got: got, OK: got == e.Value}
	}
	return out
}

// CheckError returns an error naming every expected control variable
// whose value did not read back as expected (MPIT.Checked), nil when all
// did or none was expected.
func (m *MPIT) CheckError() error {
	if m == nil {
		return nil
	}
	var bad []string
	for _, c := range m.Checked {
		if !c.OK {
			got := c.Got
			if got == "" {
				got = "nothing (no such variable, or MPI_T unreadable"
				if m.Error != "" {
					got += ": " + m.Error
				}
				got += ")"
			}
			bad = append(bad, fmt.Sprintf("%s read %s, want %s", c.Name, got, c.Want))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("provenance: the control variables the launcher set did not take effect (%s): %s", ExpectEnv, strings.Join(bad, "; "))
}

// simulatedMPIT reads the simulated world's control variables from c (an
// mpi.ControlVariableSource, package mpitest), with their defaults; a
// communicator without them gives an empty record.
func simulatedMPIT(c mpi.Comm, all bool) (*MPIT, []mpi.ControlVariable) {
	src, ok := c.(mpi.ControlVariableSource)
	if !ok {
		return &MPIT{DefaultsFrom: "simulated"}, nil
	}
	vs, defs := src.ControlVariables()
	m := &MPIT{DefaultsFrom: "simulated: the simulated MPI_T table's defaults (package mpitest)"}
	return compareCvars(m, vs, defs, true, all, os.Getenv, nil), vs
}
