package window

import (
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// TestFactorLevels: the level names the factor table gives writers
// outside the engine are this package's.
func TestFactorLevels(t *testing.T) {
	if RuntimeLocal.String() != factor.LevelLocal {
		t.Errorf("RuntimeLocal %q, factor.LevelLocal %q", RuntimeLocal, factor.LevelLocal)
	}
	if _, err := ParseRuntimeType(factor.LevelLocal); err != nil {
		t.Error(err)
	}
}
