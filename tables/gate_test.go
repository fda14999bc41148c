package tables

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
)

// The gate's header counts its groups in the right number.
func TestWriteGateTextGroups(t *testing.T) {
	for _, c := range []struct {
		family int
		want   string
	}{{1, "Holm over 1 group,"}, {9, "Holm over 9 groups,"}} {
		var b bytes.Buffer
		if err := WriteGateText(&b, analysis.GateReport{Family: c.family, Threshold: 0.05, Alpha: 0.05}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("family %d: want %q in\n%s", c.family, c.want, b.String())
		}
	}
}
