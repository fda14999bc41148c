package mpirun

import (
	"testing"
	"time"
)

func TestLoadScale(t *testing.T) {
	for _, c := range []struct {
		load float64
		cpus int
		want float64
	}{
		{-1, 2, 1}, {0, 2, 1}, {1.5, 2, 1}, {2, 2, 1}, {6, 2, 3}, {15, 2, 7.5}, {100, 2, maxScale}, {4, 0, 1},
	} {
		if got := loadScale(c.load, c.cpus); got != c.want {
			t.Errorf("loadScale(%g, %d) = %g, want %g", c.load, c.cpus, got, c.want)
		}
	}
}

func TestTimeoutScaleFromEnv(t *testing.T) {
	t.Setenv("RB_TEST_TIMEOUT_SCALE", "3")
	if s, d := TimeoutScale(), Deadline(10*time.Second); s != 3 || d != 30*time.Second {
		t.Errorf("RB_TEST_TIMEOUT_SCALE=3: scale %g, Deadline(10s) %v", s, d)
	}
	for _, bad := range []string{"0.5", "x", "-2"} {
		t.Setenv("RB_TEST_TIMEOUT_SCALE", bad)
		if s := TimeoutScale(); s < 1 || s > maxScale {
			t.Errorf("RB_TEST_TIMEOUT_SCALE=%s: scale %g, want the load's, in [1, %d]", bad, s, maxScale)
		}
	}
}
