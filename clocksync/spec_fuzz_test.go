package clocksync

import "testing"

// FuzzParseSpec checks the clock-synchronization spec parser (design
// --clocksync, run --clocksync) on arbitrary text: no panic; an accepted
// spec prints as text that parses back to the same Spec, and builds
// (every spec string is validated where it enters).
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"hca3", "skampi:pingpongs=50,minpingpongs=5,stop=1.5", "jk:trim=3.5", "twolevel:intra=fit", "bogus:x=1",
		"hca3:fitpts=9223372036854775807", "skampi:stop=NaN", "jk:trim=Inf", "jk:trim=1e400", "netgauge:maxpingpongs=-1",
		"hca3:fitpts=200, exchanges=20,intercept=fit", ":", "hca3:,,,", "HCA3:INTERCEPT=FIT", "jk:trim=0x1p-2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil {
			return
		}
		back, err := ParseSpec(s.String())
		if err != nil || back != s {
			t.Fatalf("ParseSpec(%q) = %+v prints as %q, which parses to %+v, %v", text, s, s.String(), back, err)
		}
		if _, err := s.New(); err != nil {
			t.Fatalf("ParseSpec(%q) accepted %s, but New fails: %v", text, s, err)
		}
	})
}
