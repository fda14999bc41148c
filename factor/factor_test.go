package factor

import (
	"slices"
	"testing"
)

// TestColumns: the factor columns every raw file has are those of format
// 1.1, in its order (rawdata's files stay byte-identical).
func TestColumns(t *testing.T) {
	want := []string{"procsync", "window_s", "runtime_type", "cache", "clocksync", "skew", "noise_guard", "bw_window", "rma_sync"}
	if got := Columns(); !slices.Equal(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
}

// TestRows: every row has a name, a call parameter has a flag, help, a
// family and parsable levels whose formatting parses back.
func TestRows(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Table() {
		if f.Name == "" || seen[f.Name] {
			t.Errorf("row %d: empty or repeated name %q", f.ID, f.Name)
		}
		seen[f.Name] = true
		if !f.Call {
			continue
		}
		if f.Flag == "" || f.Help == "" || f.Family == "" {
			t.Errorf("%s: a call parameter needs a flag, help and a family", f.Name)
		}
		if f.Optional && f.Since == "" {
			t.Errorf("%s: an optional column says which format added it", f.Name)
		}
		lv := []int64{f.Min, f.Max, f.Default}
		if f.Kind != KindInt {
			lv = []int64{0, int64(len(f.Levels) - 1)}
		}
		for _, v := range lv {
			got, err := f.Parse(f.Format(v))
			if err != nil || got != v {
				t.Errorf("%s: Parse(Format(%d)) = %d, %v", f.Name, v, got, err)
			}
		}
		if _, err := f.Parse(""); err == nil {
			t.Errorf("%s: the empty string parsed", f.Name)
		}
	}
}

// TestValues: Set, Over, Cell and SetCell.
func TestValues(t *testing.T) {
	run := Of(BWWindow, 64).With(RMASync, 1)
	var row Values
	if err := row.SetCell(BWWindow, "16"); err != nil {
		t.Fatal(err)
	}
	got := row.Over(run)
	if got.Cell(BWWindow) != "16" || got.Cell(RMASync) != "lock" || got.Cell(Skew) != "" || got.Level(Skew) != 1 {
		t.Errorf("row over run = %v", got)
	}
	if err := row.SetCell(RMASync, "lock_all"); err != nil || row.Cell(RMASync) != "flush" {
		t.Errorf("alias lock_all: %v, %v", row, err)
	}
	if err := row.SetCell(BWWindow, ""); err != nil || row.Cell(BWWindow) != "" {
		t.Errorf("an empty cell did not unset: %v, %v", row, err)
	}
	if err := row.SetCell(Skew, "0"); err == nil {
		t.Error("skew 0 accepted")
	}
}

// TestParseEveryKind: Parse reads seconds, ParseText every kind, and
// Format writes what they read.
func TestParseEveryKind(t *testing.T) {
	w := Window.Row()
	v, err := w.Parse("0.0001")
	if err != nil || v != 100000 || w.Format(v) != "0.0001" {
		t.Errorf("window_s 0.0001: %d, %v, %q", v, err, w.Format(v))
	}
	if _, err := w.Parse("-1"); err == nil {
		t.Error("window_s -1 accepted")
	}
	for _, c := range []struct {
		id       ID
		in, want string
	}{{ProcSync, "window", "window"}, {Window, "1e-3", "0.001"}, {NoiseGuard, "ON", "on"}, {BufOffset, "3", "3"}, {RMASync, "lock_all", "flush"}} {
		got, err := c.id.Row().ParseText(c.in)
		if err != nil || got != c.want {
			t.Errorf("%s %q: %q, %v; want %q", c.id, c.in, got, err, c.want)
		}
	}
	if _, err := ProcSync.Row().ParseText(""); err == nil {
		t.Error("empty procsync accepted")
	}
}

// TestValuesText: a KindText factor's level is a text cell that round-trips
// through SetCell and Cell, survives Over, and clears; an integer factor's
// cell beside it is unaffected.
func TestValuesText(t *testing.T) {
	var x Values
	if err := x.SetCell(ClockSync, "hca3:fitpts=10,exchanges=5"); err != nil {
		t.Fatal(err)
	}
	if err := x.SetCell(Window, "0.00013"); err != nil {
		t.Fatal(err)
	}
	if got := x.Cell(ClockSync); got != "hca3:fitpts=10,exchanges=5" {
		t.Errorf("clocksync cell %q", got)
	}
	if got := x.Cell(Window); got != "0.00013" {
		t.Errorf("window_s cell %q", got)
	}
	var y Values
	y.SetText(ProcSync, "barrier")
	z := y.Over(x)
	if z.Text(ClockSync) != "hca3:fitpts=10,exchanges=5" || z.Text(ProcSync) != "barrier" || !z.Has(Window) {
		t.Errorf("Over: %v", z)
	}
	if z.String() != "procsync=barrier window_s=0.00013 clocksync=hca3:fitpts=10,exchanges=5" {
		t.Errorf("String: %q", z.String())
	}
	z.SetText(ProcSync, "")
	if z.Has(ProcSync) || z.Cell(ProcSync) != "" {
		t.Errorf("an empty text level did not unset: %v", z)
	}
	if z == x {
		return
	}
	z.Clear(Window)
	z.Set(Window, 130000)
	if z != x {
		t.Errorf("equal cells compare unequal: %v and %v", z, x)
	}
}

// TestDesignColumns: the design columns are every row but the PerMpirun
// ones, each at its own DesignOrder, in the order design files have had
// (clocksync before runtime_type, unlike the raw file).
func TestDesignColumns(t *testing.T) {
	var got []string
	orders := map[int]bool{}
	for _, id := range DesignColumns() {
		f := id.Row()
		if f.Scope == PerMpirun || f.DesignOrder <= 0 || orders[f.DesignOrder] {
			t.Errorf("%s: scope %v, design order %d (repeated or not positive)", f.Name, f.Scope, f.DesignOrder)
		}
		orders[f.DesignOrder] = true
		got = append(got, f.Name)
	}
	want := []string{"procsync", "window_s", "clocksync", "runtime_type", "cache", "skew", "noise_guard", "bw_window", "rma_sync", "in_place", "root_shift", "buf_offset"}
	if !slices.Equal(got, want) {
		t.Errorf("DesignColumns() = %v, want %v", got, want)
	}
}
