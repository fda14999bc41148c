package analysis

import (
	"errors"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/rawcases"
)

// TestReadRawRefusesSharedCases: the reader refuses every case of the list
// that rawdata's writer is tested against (rawdata's TestWriterTwinsReader),
// so each refusal here has a twin there.
func TestReadRawRefusesSharedCases(t *testing.T) {
	for _, c := range rawcases.Cases {
		_, err := ReadRaw(strings.NewReader(c.CSV()), "case.csv")
		if err == nil {
			t.Errorf("%s: accepted:\n%s", c.Name, c.CSV())
			continue
		}
		if !errors.Is(err, errFormat) {
			t.Errorf("%s: %v does not wrap ErrFormat", c.Name, err)
		}
	}
	// The valid rows the cases start from are read.
	for _, c := range []rawcases.Case{{Rows: []map[string]string{{}}}, {PerRank: true, Rows: []map[string]string{{}}}} {
		if _, err := ReadRaw(strings.NewReader(c.CSV()), "valid.csv"); err != nil {
			t.Errorf("valid row (per-rank %v): %v", c.PerRank, err)
		}
	}
}
