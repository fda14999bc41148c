package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// skewRow summarizes how far apart in global time the ranks started the
// timed call (Hunold & Carpen-Amarie 2016, Fig. 10: the exit imbalance of MPI_Barrier).
type skewRow struct {
	Group string `json:"group"` // call/msize/sync/rt
	N     int    `json:"n"`
	// StartSpread is max − min over ranks of the global start time.
	StartSpreadMedianS float64 `json:"start_spread_median_s"`
	StartSpreadP90S    float64 `json:"start_spread_p90_s"`
	StartSpreadP99S    float64 `json:"start_spread_p99_s"`
	// Rank1MinusRank0 is the signed global start of rank 1 − rank 0.
	Rank1MinusRank0MedianS float64 `json:"rank1_minus_rank0_start_median_s"`
}

// cmdSkew reads per-rank files (reprobench run --per-rank) of valid
// observations and reports, per call, size, sync method and runtime type,
// how far apart in global time the ranks entered the timed call.
func cmdSkew(args []string) error {
	fs := flag.NewFlagSet("skew", flag.ContinueOnError)
	out := fs.String("out", ".", "output directory")
	name := fs.String("name", "start_skew", "output file prefix")
	if err := fs.Parse(args); err != nil {
		return err
	}
	spread := map[string][]float64{}
	signed := map[string][]float64{}
	for _, in := range fs.Args() {
		if err := skewOne(in, spread, signed); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(spread))
	for k := range spread {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var res []skewRow
	var rows [][]string
	for _, k := range keys {
		s, d := spread[k], signed[k]
		slices.Sort(s)
		slices.Sort(d)
		r := skewRow{Group: k, N: len(s), StartSpreadMedianS: analysis.Quantile(0.5, s), StartSpreadP90S: analysis.Quantile(0.9, s),
			StartSpreadP99S: analysis.Quantile(0.99, s), Rank1MinusRank0MedianS: analysis.Quantile(0.5, d)}
		res = append(res, r)
		rows = append(rows, []string{k, strconv.Itoa(r.N), g(r.StartSpreadMedianS), g(r.StartSpreadP90S), g(r.StartSpreadP99S), g(r.Rank1MinusRank0MedianS)})
		fmt.Printf("%-48s n %6d  start spread (max−min over ranks, global clock): median %8.3f µs  p90 %8.3f µs  p99 %8.3f µs;  rank1−rank0 median %+8.3f µs\n",
			k, r.N, 1e6*r.StartSpreadMedianS, 1e6*r.StartSpreadP90S, 1e6*r.StartSpreadP99S, 1e6*r.Rank1MinusRank0MedianS)
	}
	if err := writeCSV(filepath.Join(*out, *name+".csv"), []string{"group", "n", "start_spread_median_s", "start_spread_p90_s",
		"start_spread_p99_s", "rank1_minus_rank0_start_median_s"}, rows); err != nil {
		return err
	}
	return writeJSON(filepath.Join(*out, *name+".json"), res)
}

// skewOne adds the observations of one per-rank file (PREFIX.ranks.csv,
// with its sidecar PREFIX.json).
func skewOne(in string, spread, signed map[string][]float64) error {
	side := strings.TrimSuffix(in, ".ranks.csv") + ".json"
	b, err := os.ReadFile(side)
	if err != nil {
		return err
	}
	var meta sidecar
	if err := json.Unmarshal(b, &meta); err != nil {
		return fmt.Errorf("%s: %w", side, err)
	}
	method := map[string]string{}
	for _, e := range meta.Experiments {
		method[strconv.Itoa(e.Exp)] = "sync=" + e.ProcSync + "/rt=" + e.RuntimeType
	}
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", in, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, c := range []string{"exp", "call", "msize_bytes", "rep", "rank", "global_start_s", "errorcode"} {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s: no column %s", in, c)
		}
	}
	type obsKey struct{ exp, rep string }
	starts := map[obsKey][]float64{}
	group := map[obsKey]string{}
	var order []obsKey
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if rec[col["errorcode"]] != "0" {
			continue
		}
		k := obsKey{rec[col["exp"]], rec[col["rep"]]}
		rank, err1 := strconv.Atoi(rec[col["rank"]])
		gs, err2 := strconv.ParseFloat(rec[col["global_start_s"]], 64)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if _, ok := starts[k]; !ok {
			order = append(order, k)
			m, ok := method[k.exp]
			if !ok {
				return fmt.Errorf("%s: exp %s not in %s", in, k.exp, side)
			}
			group[k] = rec[col["call"]] + "/msize=" + rec[col["msize_bytes"]] + "/" + m
		}
		for len(starts[k]) <= rank {
			starts[k] = append(starts[k], 0)
		}
		starts[k][rank] = gs
	}
	for _, k := range order {
		s := starts[k]
		if len(s) < 2 {
			continue
		}
		spread[group[k]] = append(spread[group[k]], slices.Max(s)-slices.Min(s))
		signed[group[k]] = append(signed[group[k]], s[1]-s[0])
	}
	return nil
}
