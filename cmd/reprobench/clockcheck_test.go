package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseAfter(t *testing.T) {
	got, err := parseAfter("0,1,5,10s, 1m")
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, time.Second, 5 * time.Second, 10 * time.Second, time.Minute}
	if len(got) != len(want) {
		t.Fatalf("parseAfter = %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("parseAfter[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"", "x", "5,1", "-1"} {
		if _, err := parseAfter(bad); err == nil {
			t.Errorf("parseAfter(%q) succeeded", bad)
		}
	}
}

func TestClockcheckSimJSON(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "6", "--alg", "hca3:fitpts=100,exchanges=20",
		"--after", "0,2s", "--json", "--skew-rank", "3", "--skew-offset", "1s", "--skew-ppm", "100", "--per-rank"})
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rep struct {
		Algorithm    string  `json:"algorithm"`
		Ranks        int     `json:"ranks"`
		Simulated    bool    `json:"simulated"`
		Clock        string  `json:"clock"`
		SyncDuration float64 `json:"sync_duration_s"`
		Messages     int64   `json:"messages"`
		Checks       []struct {
			After      float64   `json:"after_s"`
			MaxAbs     float64   `json:"max_abs_offset_s"`
			MedianAbs  float64   `json:"median_abs_offset_s"`
			TrueMaxAbs *float64  `json:"true_max_abs_error_s"`
			Offsets    []float64 `json:"offsets_s"`
		} `json:"checks"`
		PerRank []struct {
			Slope float64 `json:"slope"`
		} `json:"per_rank"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.HasPrefix(rep.Algorithm, "hca3:fitpts=100,exchanges=20,") || rep.Ranks != 6 || !rep.Simulated ||
		rep.SyncDuration <= 0 || rep.Messages <= 0 || len(rep.Checks) != 2 || rep.Checks[1].After != 2 ||
		len(rep.PerRank) != 6 || !strings.Contains(rep.Clock, "skewed") {
		t.Fatalf("report %s", out.String())
	}
	// Small parameters learn the drift roughly: within a µs at once, within
	// 20 µs two seconds later (the clocks start ±1 s apart).
	for i, ck := range rep.Checks {
		bound := []float64{1e-6, 20e-6}[i]
		if ck.TrueMaxAbs == nil || *ck.TrueMaxAbs > bound || ck.MaxAbs > bound || len(ck.Offsets) != 6 {
			t.Errorf("check %+v", ck)
		}
	}
	// The skewed rank's slope holds its extra 100 ppm.
	if s := rep.PerRank[3].Slope; s < 50e-6 || s > 150e-6 {
		t.Errorf("skewed rank slope %g", s)
	}
}

func TestClockcheckSimText(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "4", "--alg", "skampi:pingpongs=20", "--after", "0,1"})
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"algorithm  skampi:", "4 simulated ranks (seed 1), clock mpitest", "true max |error|", "\n     1s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// An offset-only sync fails a tight bound a second later.
	err = run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "4", "--alg", "skampi", "--after", "0,1", "--fail-above", "1us"})
	if err == nil || !strings.Contains(err.Error(), "above --fail-above 1µs") {
		t.Errorf("--fail-above: %v", err)
	}
}

func TestClockcheckUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--sim", "--alg", "ntp"},
		{"--sim", "--alg", "hca3:fitpts=1"},
		{"--sim", "--after", "5,1"},
		{"--sim", "--ranks", "0"},
		{"--sim", "--ranks", "2", "--skew-rank", "2"},
		{"--sim", "--pingpongs", "0"},
		{"--sim", "extra"},
	} {
		var out, errb bytes.Buffer
		err := run(&out, &errb, append([]string{"clockcheck"}, args...))
		if !errors.Is(err, errUsage) {
			t.Errorf("clockcheck %v: %v, want a usage error", args, err)
		}
	}
}
