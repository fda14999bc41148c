package analysis

import "testing"

func TestTimeUnitScaling(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{5.5e-10, "0.550ns"}, {1.234e-8, "12.3ns"}, {9.994e-7, "999ns"}, {1.5e-6, "1.50µs"},
		{2.5e-4, "250µs"}, {0.0123, "12.3ms"}, {3.21, "3.21s"},
	} {
		if got := FormatTime(c.v); got != c.want {
			t.Errorf("FormatTime(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := FormatTimeScaledPair(1.0001e-6, 1.0002e-6, 1e6, "µs"); got != "1.0001µs, 1.0002µs" {
		t.Errorf("narrow interval printed as %q", got)
	}
}
