package rawdata_test

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/rawcases"
	"github.com/reprobench/reprobench/rawdata"
)

// TestWriterTwinsReader feeds the reader's rejection cases
// (internal/rawcases, which analysis's TestReadRawRefusesSharedCases
// checks the reader refuses) to the Writer. For each case, either
//   - the cell cannot be held by the Go type of its field (errorcode "x"
//     is not an int), so no program can hand it to the Writer: checked
//     by converting it;
//   - or the Writer refuses it when it is given (Create or Row), with an
//     error that names the field, and writes no row of it;
//   - or (Spelling cases) the value is fine and only its spelling was
//     refused: the Writer writes it in a spelling the reader accepts,
//     and the value reads back.
func TestWriterTwinsReader(t *testing.T) {
	for _, c := range rawcases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			dir := t.TempDir()
			rows, rankRows, o, convErr := convert(c)
			o.Dir = dir
			if convErr != "" {
				if c.Spelling {
					t.Fatalf("spelling case does not convert: %s", convErr)
				}
				if !strings.Contains(convErr, c.Field) {
					t.Fatalf("conversion failed on %s, not on the case's field %s", convErr, c.Field)
				}
				return // the Go type is the twin
			}
			o.PerRank = c.PerRank
			w, err := rawdata.Create(o)
			if err == nil {
				for i := range rows {
					if err = w.Row(&rows[i]); err != nil {
						break
					}
				}
				for i := range rankRows {
					if err = w.RankRow(&rankRows[i]); err != nil {
						break
					}
				}
			}
			if c.Spelling {
				if err != nil {
					t.Fatalf("refused a fine value: %v", err)
				}
				if err := w.Close(&rawdata.Metadata{}); err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(w.Names().CSV)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				d, err := analysis.ReadRaw(f, w.Names().CSV)
				if err != nil {
					t.Fatalf("the reader refuses what the writer wrote: %v", err)
				}
				if got := d.Groups[0].Runtimes[0]; got != rows[0].RuntimeS {
					t.Errorf("read back %v, wrote %v", got, rows[0].RuntimeS)
				}
				return
			}
			if err == nil {
				t.Fatalf("the writer accepted what the reader refuses:\n%s", c.CSV())
			}
			if !strings.Contains(err.Error(), c.Field) {
				t.Errorf("error %q does not name the field %s", err, c.Field)
			}
			if w != nil {
				if err := w.Close(&rawdata.Metadata{}); err != nil {
					t.Fatal(err)
				}
				want := 1 + len(rows) - 1 // header and the rows before the refused one
				if c.PerRank {
					want = 1 + len(rankRows) - 1
				}
				name := w.Names().CSV
				if c.PerRank {
					name = w.Names().Ranks
				}
				b, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				if n := strings.Count(string(b), "\n"); n != want {
					t.Errorf("%d lines written, want %d (the refused row must not reach the file):\n%s", n, want, b)
				}
			}
		})
	}
}

// convert turns a case's cells into the Writer's inputs; convErr names the
// column of a cell its Go type cannot hold.
func convert(c rawcases.Case) (rows []rawdata.Row, rankRows []rawdata.RankRow, o rawdata.Options, convErr string) {
	atoi := func(m map[string]string, k string) int {
		v, err := strconv.Atoi(m[k])
		if err != nil && convErr == "" {
			convErr = k + ": " + err.Error()
		}
		return v
	}
	atof := func(m map[string]string, k string) float64 {
		v, err := strconv.ParseFloat(m[k], 64)
		if err != nil && convErr == "" {
			convErr = k + ": " + err.Error()
		}
		return v
	}
	declared := map[int]bool{}
	for i := range c.Rows {
		m := c.Cells(i)
		o.RunID, o.Mpirun = m["run_id"], atoi(m, "mpirun")
		for _, l := range c.Labels() {
			if o.Labels == nil {
				o.Labels = map[string]string{}
			}
			o.Labels[l] = m[l]
		}
		exp := atoi(m, "exp")
		if !declared[exp] {
			declared[exp] = true
			o.Experiments = append(o.Experiments, rawdata.Experiment{Exp: exp,
				Factors: factor.Values{}.WithText(factor.ProcSync, "barrier").WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "none")})
		}
		if c.PerRank {
			rankRows = append(rankRows, rawdata.RankRow{Exp: exp, Call: m["call"], MsizeBytes: atoi(m, "msize_bytes"), Np: atoi(m, "np"),
				Rep: atoi(m, "rep"), Rank: atoi(m, "rank"), LocalStartS: atof(m, "local_start_s"), LocalEndS: atof(m, "local_end_s"),
				GlobalStartS: atof(m, "global_start_s"), GlobalEndS: atof(m, "global_end_s"), ErrorCode: atoi(m, "errorcode")})
			continue
		}
		rows = append(rows, rawdata.Row{Exp: exp, Call: m["call"], MsizeBytes: atoi(m, "msize_bytes"), Count: atoi(m, "count"),
			Datatype: m["datatype"], Np: atoi(m, "np"), Rep: atoi(m, "rep"), RuntimeS: atof(m, "runtime_s"), ErrorCode: atoi(m, "errorcode")})
	}
	return rows, rankRows, o, convErr
}

// TestWriterFloatsReadBack: every float64 the Writer is given, special
// values included, is written in a spelling the reader parses to the same
// value (NaN to NaN): the reader's strict decimal syntax refuses nothing
// the Writer writes.
func TestWriterFloatsReadBack(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 5e-324, 1e-300, 2.91e-07, 1.0 / 3, math.Nextafter(1e-6, 2),
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), -1e-6}
	w, err := rawdata.Create(rawdata.Options{Dir: t.TempDir(), RunID: "f", Experiments: []rawdata.Experiment{{Exp: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		ec := 0
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			ec = 1 // the Writer takes these only for an invalid observation
		}
		if err := w.Row(&rawdata.Row{Call: "x", Datatype: "byte", Np: 1, Rep: i, RuntimeS: v, ErrorCode: ec}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(&rawdata.Metadata{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Names().CSV)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := analysis.ReadRaw(strings.NewReader(string(b)), "f.csv"); err != nil {
		t.Fatalf("the reader refuses the file: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	col := slices.Index(rawdata.Columns, "runtime_s")
	for i, line := range lines {
		cell := strings.Split(line, ",")[col]
		got, err := analysis.ParseDecimal(cell)
		if v := vals[i]; err != nil || (got != v && !(math.IsNaN(v) && math.IsNaN(got))) || math.Signbit(got) != math.Signbit(v) {
			t.Errorf("%v written as %q read back as %v, %v", v, cell, got, err)
		}
	}
}
