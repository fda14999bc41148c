// Command binaries summarizes bench/fidelity/binaries.sh: per round the
// ratios a/tool, b/tool and a/b, and over all rounds their median with its
// exact 95 % order-statistic interval (analysis.MedianCI). A round without
// all three values is an error, never left out.
//
//	go -C bench run ./fidelity/binaries OUT/CELL.csv
package main

import (
	"encoding/csv"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"

	"github.com/reprobench/reprobench/analysis"
	"gonum.org/v1/gonum/stat"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: binaries CELL.csv")
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		log.Fatal(err)
	}
	var at, bt, ab []float64
	for i, r := range recs[1:] {
		var v [3]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[3+j], 64); err != nil || v[j] <= 0 {
				log.Fatalf("round %d: column %s has no value (%q): count every round", i+1, recs[0][3+j], r[3+j])
			}
		}
		at, bt, ab = append(at, v[1]/v[0]), append(bt, v[2]/v[0]), append(ab, v[1]/v[2])
	}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"a/tool", at}, {"b/tool", bt}, {"a/b", ab}} {
		ci := analysis.MedianCI(s.x, 0.95)
		fmt.Printf("%-7s rounds %d  median %.3f [%.3f, %.3f]  mean %.3f\n", s.name, len(s.x), stat.Quantile(0.5, stat.Empirical, sorted(s.x), nil), ci.Lo, ci.Hi, stat.Mean(s.x, nil))
	}
}

func sorted(x []float64) []float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y
}
