package clocksync

import (
	"strings"
	"testing"
	"time"
)

func TestParseSpecDefaults(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"skampi", "skampi:rttpingpongs=100,warmup=10,pingpongs=100,minpingpongs=10,stop=0"},
		{"netgauge", "netgauge:pingpongs=100,maxpingpongs=10000"},
		{"jk", "jk:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"},
		{"Jones-Koenig", "jk:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"},
		{"hca", "hca:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,pingpongs=100,minpingpongs=10,stop=0"},
		{"hca2:", "hca2:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,pingpongs=100,minpingpongs=10,stop=0"},
		{"HCA3", "hca3:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,pingpongs=100,minpingpongs=10,stop=0,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"},
		{"hca3:accuracy=none", "hca3:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,pingpongs=100,minpingpongs=10,stop=0,accuracy=none"},
		{"hca3o", "hca3o:rttpingpongs=100,warmup=10,pingpongs=100,minpingpongs=10,stop=0"},
		{"two-level", "twolevel:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,intra=shared,pingpongs=100,minpingpongs=10,stop=0,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"},
		{"hca3:fitpts=200, exchanges=20,intercept=fit", "hca3:fitpts=200,exchanges=20,trim=0,rttpingpongs=100,warmup=10,intercept=fit,pingpongs=100,minpingpongs=10,stop=0,accuracy=none"},
		{"skampi:pingpongs=10", "skampi:rttpingpongs=100,warmup=10,pingpongs=10,minpingpongs=10,stop=0"},
		{"skampi:pingpongs=50,minpingpongs=5,stop=1.5", "skampi:rttpingpongs=100,warmup=10,pingpongs=50,minpingpongs=5,stop=1.5"},
		{"jk:trim=3.5", "jk:fitpts=1000,exchanges=100,trim=3.5,rttpingpongs=100,warmup=10,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"},
		{"jk:warmup=5", "jk:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=5,accuracy=none"},
		{"hca3:budget=2s", "hca3:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,pingpongs=100,minpingpongs=10,stop=0,accuracy=1µs@10s,budget=2s,burst=10,robust=rtt+trim"},
		{"hca3:intercept=FIT", "hca3:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=fit,pingpongs=100,minpingpongs=10,stop=0,accuracy=none"},
	} {
		s, err := ParseSpec(c.in)
		if err != nil {
			t.Errorf("ParseSpec(%q): %v", c.in, err)
			continue
		}
		if got := s.String(); got != c.want {
			t.Errorf("ParseSpec(%q).String() =\n %s\nwant\n %s", c.in, got, c.want)
		}
		back, err := ParseSpec(s.String())
		if err != nil || back != s {
			t.Errorf("round trip of %q: %+v, %v; want %+v", s.String(), back, err, s)
		}
		if _, err := s.New(); err != nil {
			t.Errorf("%s.New(): %v", s, err)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{"", "empty algorithm spec"},
		{"ntp", `unknown algorithm "ntp"`},
		{"skampi:fitpts=10", `unknown parameter "fitpts" (skampi takes pingpongs`},
		{"hca3:fitpts", `"fitpts" is not key=value`},
		{"hca3:fitpts=", `is not key=value`},
		{"hca3:fitpts=ten", `fitpts="ten" is not an integer`},
		{"hca3:fitpts=1", "fitpts=1: a regression needs at least 2 fit points"},
		{"jk:exchanges=0", "exchanges=0"},
		{"jk:fitpts=10,fitpts=20", `"fitpts" given twice`},
		{"skampi:pingpongs=5", "minpingpongs=10 must be between 1 and pingpongs=5"},
		{"skampi:stop=-1", "stop=-1 must be a number ≥ 0"},
		{"skampi:stop=x", `stop="x" is not a number`},
		{"hca3:intercept=ols", `intercept="ols": want fit or skampi`},
		{"twolevel:intra=tree", `intra="tree": want shared, asserted, offset or fit`},
		{"netgauge:maxpingpongs=5", "maxpingpongs=5 must be at least pingpongs=100"},
		{"jk:warmup=-1", "warmup=-1 must not be negative"},
		{"hca:trim=-2", "trim=-2 must be a number ≥ 0"},
	} {
		_, err := ParseSpec(c.in)
		if err == nil {
			t.Errorf("ParseSpec(%q) succeeded", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseSpec(%q) = %v; want it to mention %q", c.in, err, c.msg)
		}
	}
}

func TestSpecNewStructure(t *testing.T) {
	for name, check := range map[string]func(*Algorithm) bool{
		"skampi": func(a *Algorithm) bool {
			_, ok := a.Topology.(*Linear)
			_, ol := a.Learner.(*OffsetOnly)
			return ok && ol
		},
		"jk": func(a *Algorithm) bool {
			_, ok := a.Topology.(*Linear)
			_, sp := a.Learner.(*Spread)
			return ok && sp
		},
		"jk:accuracy=none": func(a *Algorithm) bool {
			_, ok := a.Topology.(*Linear)
			_, r := a.Learner.(*Regression)
			return ok && r
		},
		"netgauge": func(a *Algorithm) bool {
			t, ok := a.Topology.(*BottomUpTree)
			return ok && t.Intercepts == FittedIntercepts
		},
		"hca": func(a *Algorithm) bool {
			t, ok := a.Topology.(*BottomUpTree)
			return ok && t.Intercepts == RootIntercepts
		},
		"hca2": func(a *Algorithm) bool {
			t, ok := a.Topology.(*BottomUpTree)
			return ok && t.Intercepts == HierarchicalIntercepts
		},
		"hca3": func(a *Algorithm) bool {
			t, ok := a.Topology.(*TopDownTree)
			sp, _ := a.Learner.(*Spread)
			return ok && t.Intercept == nil && sp != nil && sp.Target == Default().Accuracy
		},
		"hca3:accuracy=none": func(a *Algorithm) bool {
			t, ok := a.Topology.(*TopDownTree)
			_, r := a.Learner.(*Regression)
			return ok && r && t.Intercept != nil
		},
		"hca3:fitpts=200": func(a *Algorithm) bool {
			_, r := a.Learner.(*Regression)
			return r
		},
		"hca3o": func(a *Algorithm) bool {
			_, ok := a.Topology.(*TopDownTree)
			_, ol := a.Learner.(*OffsetOnly)
			return ok && ol
		},
		"twolevel": func(a *Algorithm) bool { _, ok := a.Topology.(*TwoLevel); return ok },
	} {
		s, err := ParseSpec(name)
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.New()
		if err != nil {
			t.Fatal(err)
		}
		if !check(a) {
			t.Errorf("%s builds %T with %T", name, a.Topology, a.Learner)
		}
		if n, _, _ := strings.Cut(name, ":"); !strings.HasPrefix(a.Name, n+":") {
			t.Errorf("%s: Name %q", name, a.Name)
		}
	}
}

// TestDefaultRecorded pins the text that metadata records for Default
// ("run --clock-sync auto", clockcheck without --alg): it must not change
// when the API around it does.
func TestDefaultRecorded(t *testing.T) {
	const want = "twolevel:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,intra=shared,pingpongs=100,minpingpongs=10,stop=0,accuracy=1µs@10s,budget=auto,burst=10,robust=rtt+trim"
	d := Default()
	if d.String() != want {
		t.Errorf("Default() = %s, want %s", d, want)
	}
	if p, err := ParseSpec(d.Name); err != nil || p != d {
		t.Errorf("ParseSpec(%q) = %v, %v; want Default() %v", d.Name, p, err, d)
	}
	if s, err := ParseSpec("hca3", DefaultTarget(Accuracy{Error: time.Microsecond, Horizon: time.Second})); err != nil || s.Accuracy.String() != "1µs@1s" {
		t.Errorf("DefaultTarget: %v, %v", s, err)
	}
}
