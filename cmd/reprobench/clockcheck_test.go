package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
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
		{"--sim", "--clock-accuracy", "1us"},
		{"--sim", "--alg", "skampi", "--clock-accuracy", "1us@1s"},
	} {
		var out, errb bytes.Buffer
		err := run(&out, &errb, append([]string{"clockcheck"}, args...))
		if !errors.Is(err, errUsage) {
			t.Errorf("clockcheck %v: %v, want a usage error", args, err)
		}
	}
}

// --clock-accuracy learns to the target (the Spread learner) and reports the
// predicted bound, which covers the true error (simulation), and every
// check's own uncertainty; text and JSON.
func TestClockcheckAccuracyTarget(t *testing.T) {
	var out, errb bytes.Buffer
	// 4 ranks: two links add up to each rank's error, 2 µs@10s; on one
	// host's links (300 ns one way). --sim leaves the bound's systematic
	// terms out (bias=none: the simulated links have no asymmetry and no
	// wander, clocksim.Spec).
	err := run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "4", "--clock-accuracy", "2us@10s",
		"--after", "0,10s", "--json", "--skew-rank", "1", "--skew-ppm", "100", "--latency-us", "0.3"})
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rep struct {
		Algorithm    string `json:"algorithm"`
		Target       string `json:"target"`
		TargetSource string `json:"target_source"`
		TargetMet    bool   `json:"target_met"`
		Bound        struct {
			AtSync float64 `json:"bound_at_sync_s"`
			Slope  float64 `json:"bound_slope"`
		} `json:"bound"`
		Checks []struct {
			After       float64  `json:"after_s"`
			TrueMaxAbs  *float64 `json:"true_max_abs_error_s"`
			Bound       *float64 `json:"predicted_bound_s"`
			Covered     *bool    `json:"within_bound"`
			Uncertainty float64  `json:"max_offset_uncertainty_s"`
			RTT         float64  `json:"max_rtt_s"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(rep.Algorithm, "accuracy=2µs@10s") || rep.Target != "2µs@10s" || !rep.TargetMet || rep.TargetSource != "--clock-accuracy" ||
		!(rep.Bound.AtSync > 0) || !(rep.Bound.Slope > 0) || len(rep.Checks) != 2 {
		t.Fatalf("report %s", out.String())
	}
	for _, ck := range rep.Checks {
		if ck.Bound == nil || ck.Covered == nil || !*ck.Covered || *ck.TrueMaxAbs > *ck.Bound || *ck.TrueMaxAbs > 1e-6 ||
			!(ck.Uncertainty > 0) || !(ck.RTT > 0) {
			t.Errorf("check %+v", ck)
		}
	}
	out.Reset()
	// No flag: the default target, and the text says it is the default.
	// The link is one host's (300 ns one way, as shared memory here).
	err = run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "2", "--after", "0", "--latency-us", "0.3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"accuracy=1µs@10s", "bound      predicted |error| ≤", "target     1µs@10s: met (the default; --clock-accuracy sets another, none the published fixed counts)",
		"predicted bound", "± (RTT)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	// none: the published fixed counts, and the text says so.
	for _, args := range [][]string{{"--clock-accuracy", "none"}, {"--alg", "hca3:fitpts=200,exchanges=20"}} {
		out.Reset()
		err = run(&out, &errb, append([]string{"clockcheck", "--sim", "--ranks", "2", "--after", "0"}, args...))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "accuracy=none") || !strings.Contains(out.String(), "target     none (") {
			t.Errorf("clockcheck %v:\n%s", args, out.String())
		}
	}
	// An unreachable target within a tiny budget says so loudly.
	out.Reset()
	err = run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "2", "--alg", "hca3:accuracy=1ns@100s,budget=20ms", "--after", "0"})
	if err != nil || !strings.Contains(out.String(), "NOT MET") {
		t.Errorf("unmet target: %v\n%s", err, out.String())
	}
	// Offset-only algorithms state no bound.
	out.Reset()
	if err := run(&out, &errb, []string{"clockcheck", "--sim", "--ranks", "2", "--alg", "skampi:pingpongs=20", "--after", "0"}); err != nil ||
		!strings.Contains(out.String(), "bound      unknown") {
		t.Errorf("skampi: %v\n%s", err, out.String())
	}
}

// A simulated rank 1 that yields its CPU on every wait (--deschedule-prob
// 1) delays one direction of every exchange: clockcheck does not state its
// statistical bound but the worst case, says why in its text and on
// stderr, records the statistical bound and the waits in the JSON, and the
// worst case covers the true error. Without the descheduling (the same
// seed) it states the statistical one.
func TestClockcheckSimDescheduled(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"clockcheck", "--sim", "--ranks", "2", "--alg", "hca3", "--after", "0,2s"}
	if err := run(&out, &errb, append(args, "--deschedule-prob", "1")); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, want := range []string{"bound      worst case |error| ≤", "rank 1 waited for a CPU during", "statistical bound ±", clocksync.ActionCausal, "ranks were descheduled"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "EXCEEDED") {
		t.Errorf("the worst case did not cover the true error:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), "WARNING: ranks descheduled") {
		t.Errorf("stderr: %s", errb.String())
	}
	out.Reset()
	if err := run(&out, &errb, append(args, "--deschedule-prob", "1", "--json", "--per-rank")); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Bound struct {
			Unknown bool `json:"bound_unknown"`
		} `json:"bound"`
		Descheduled *struct {
			Rank     int     `json:"rank"`
			Share    float64 `json:"cpu_wait_share"`
			Action   string  `json:"action"`
			Withheld struct {
				AtSync float64 `json:"bound_at_sync_s"`
			} `json:"withheld_bound"`
		} `json:"descheduled"`
		PerRank []struct {
			CPUWait *float64 `json:"cpu_wait_s"`
		} `json:"per_rank"`
		Checks []struct {
			Covered *bool `json:"within_bound"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Bound.Unknown || rep.Descheduled == nil || rep.Descheduled.Rank != 1 || rep.Descheduled.Action != clocksync.ActionCausal ||
		!(rep.Descheduled.Share > 0.5) || !(rep.Descheduled.Withheld.AtSync > 0) || len(rep.PerRank) != 2 ||
		rep.PerRank[1].CPUWait == nil || !(*rep.PerRank[1].CPUWait > 0) {
		t.Errorf("JSON %s", out.String())
	}
	for i, ck := range rep.Checks {
		if ck.Covered == nil || !*ck.Covered {
			t.Errorf("check %d: the worst case did not cover the true error (covered %v)", i, ck.Covered)
		}
	}
	out.Reset()
	if err := run(&out, &errb, args); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bound      predicted |error| ≤") {
		t.Errorf("without descheduling:\n%s", out.String())
	}
	if err := run(&out, &errb, append(args, "--deschedule-prob", "2")); err == nil {
		t.Error("--deschedule-prob 2 accepted")
	}
}
