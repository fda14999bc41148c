package completion

import (
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// TestFactorLevels: the local runtime type's name that the factor table gives writers
// outside the engine are package completion's.
func TestFactorLevels(t *testing.T) {
	if Local.String() != factor.LevelLocal {
		t.Errorf("Local %q, factor.LevelLocal %q", Local, factor.LevelLocal)
	}
	if _, err := ParseType(factor.LevelLocal); err != nil {
		t.Error(err)
	}
}
