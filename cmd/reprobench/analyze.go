package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/tables"
)

func init() {
	register(command{
		name:    "analyze",
		summary: "summarize raw observations per group (Hunold & Carpen-Amarie 2016, Alg. 6): medians with CIs, per-mpirun medians",
		run:     runAnalyze,
	})
}

// anReadFiles reads raw (and per-rank) files into one Dataset. "-" is stdin.
// groupBy names covariate columns that enter the group key
// (analysis.Dataset.GroupBy).
// An observation read twice is an error unless keepDup (--keep-duplicates).
func anReadFiles(stdin io.Reader, files []string, keepDup bool, groupBy ...string) (*analysis.Dataset, error) {
	d := analysis.NewDataset()
	d.KeepDuplicates = keepDup
	d.GroupBy = groupBy
	for _, f := range files {
		if f == "-" {
			if err := d.Read(stdin, "<stdin>"); err != nil {
				return nil, anReadError(err)
			}
			continue
		}
		if err := d.ReadFiles(f); err != nil {
			return nil, anReadError(err)
		}
	}
	return d, nil
}

// tukeyHelp is the help of --tukey in analyze, compare, plot and report.
const tukeyHelp = "Tukey's fence k: per mpirun, observations outside [Q1−k·IQR, Q3+k·IQR] are removed before every " +
	"statistic but --percentiles; 0 keeps all. Default 1.5 (Hunold & Carpen-Amarie 2016 Alg. 6), 0 for regions " +
	"unless given; Hoefler & Belli 2015 advise keeping outliers: docs/outliers.md"

// anOptions registers the options shared by analyze, compare, plot and report.
type anOptions struct {
	format  string
	tukey   float64
	visit   func(func(*flag.Flag)) // the flag set's Visit: was --tukey given?
	level   float64
	keepDup bool
}

func (o *anOptions) register(fsFormat bool, fs interface {
	StringVar(*string, string, string, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
	Visit(func(*flag.Flag))
}, formats string) {
	o.visit = fs.Visit
	fs.BoolVar(&o.keepDup, "keep-duplicates", false, "count observations read twice (same run_id, mpirun, exp, rep) instead of refusing them")
	if fsFormat {
		fs.StringVar(&o.format, "format", "text", "output format: "+formats)
	}
	fs.Float64Var(&o.tukey, "tukey", analysis.DefaultOptions.TukeyK, tukeyHelp)
	fs.Float64Var(&o.level, "level", 0.95, "confidence level of the intervals")
}

func (o *anOptions) options() (analysis.Options, error) {
	opt := analysis.DefaultOptions
	if !(o.level > 0 && o.level < 1) {
		return opt, fmt.Errorf("%w: --level must be in (0, 1)", errUsage)
	}
	if o.tukey < 0 || math.IsNaN(o.tukey) {
		return opt, fmt.Errorf("%w: --tukey must be ≥ 0", errUsage)
	}
	opt.Level, opt.TukeyK = o.level, o.tukey
	if o.visit != nil { // an explicit --tukey filters region groups too
		o.visit(func(f *flag.Flag) {
			if f.Name == "tukey" {
				opt.RegionTukeyK = o.tukey
			}
		})
	}
	return opt, nil
}

// cpuLoadRuleHelp states the busy-machine rule (analysis.BusyShare,
// analysis.GroupLoad.Explains) for the help of analyze and report.
var cpuLoadRuleHelp = fmt.Sprintf("An mpirun ran on a busy machine when other processes took\n"+
	"≥ %.0f%% of the CPU time its ranks could use; the load explains a group's numbers when some of its mpiruns were busy\n"+
	"and its invalid share is in excess of the machine's own or its slowest per-mpirun median is of a busy mpirun.", 100*analysis.BusyShare)

func runAnalyze(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("analyze", "[--format text|csv|json|benchstat] [--tukey K] [--level L] [--wide | --columns C,...] FILES...\n\n"+
		"Per group of observations with the same call, message size, np, datatype and labels (Hunold & Carpen-Amarie 2016\nAlg. 6): outliers removed per mpirun, per-mpirun medians, the headline median with its interval.\n"+
		"Below the table (text): each group's invalid share beside the machine's own late share, and the CPU time other\n"+
		"processes took during each mpirun (from /proc). "+cpuLoadRuleHelp+"\n\n"+
		tables.ColumnHelp(), stderr)
	var o anOptions
	o.register(true, fs, "text, csv, json or benchstat (Go benchmark format, one line per mpirun median)")
	wide := fs.Bool("wide", false, "text: every column (see above)")
	columns := fs.String("columns", "", "text: these columns, comma-separated (see above)")
	pcts := fs.String("percentiles", "", "tail percentiles, e.g. 50,90,99,99.9: the median over mpiruns of each mpirun's percentile with its interval (pooled, marked, with too few mpiruns); docs/percentiles.md")
	by := fs.String("by", "", "also group by these recorded covariate `columns`, comma-separated ("+strings.Join(analysis.UngroupedColumns(), ", ")+"); without it a covariate only explains modes")
	compute := fs.String("compute", "", "application regions: the region `names`, comma-separated, that are useful computation for the POP efficiencies (default: those the recorder marked); docs/regions.md")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	var groupBy []string
	if *by != "" {
		for _, c := range strings.Split(*by, ",") {
			if !slices.Contains(analysis.UngroupedColumns(), c) {
				return fmt.Errorf("%w: --by %q: not a covariate column (have %s; labels and the factors that group are always grouped by)", errUsage, c, strings.Join(analysis.UngroupedColumns(), ", "))
			}
			groupBy = append(groupBy, c)
		}
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	if *pcts != "" {
		if opt.Percentiles, err = analysis.ParsePercentiles(*pcts); err != nil {
			return fmt.Errorf("%w: --percentiles: %v", errUsage, err)
		}
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no input files", errUsage)
	}
	d, err := anReadFiles(os.Stdin, fs.Args(), o.keepDup, groupBy...)
	if err != nil {
		return err
	}
	reportDuplicates(stderr, "analyze", "", d)
	sums := analysis.Analyze(d, opt)
	if base, err := analysis.ReadWindowBaselines(d); err != nil {
		fmt.Fprintf(stderr, "analyze: window baselines not read: %v\n", err)
	} else {
		analysis.SetInvalidExcess(sums, base, opt.Level)
	}
	loads, err := analysis.ReadCPULoads(d)
	if err != nil {
		fmt.Fprintf(stderr, "analyze: CPU loads not read: %v\n", err)
	}
	analysis.SetCPULoad(sums, loads)
	pool := analysis.PoolRanks(d, 1-opt.Level)
	if len(sums) == 0 && len(pool) == 0 {
		return fmt.Errorf("no observations in %s", strings.Join(fs.Args(), ", "))
	}
	switch o.format {
	case "text":
		cols, err := tables.SelectColumns(*columns, *wide, sums)
		if err != nil {
			return fmt.Errorf("%w: --columns: %v", errUsage, strings.TrimPrefix(err.Error(), "tables: "))
		}
		if err := tables.WriteSummaryText(stdout, sums, pool, opt, cols); err != nil {
			return err
		}
		if err := tables.WritePercentiles(stdout, sums, opt); err != nil {
			return err
		}
		if err := tables.WriteInvalidExcess(stdout, sums, opt.Level); err != nil {
			return err
		}
		if err := tables.WriteCPULoad(stdout, d.Mpiruns, loads, sums); err != nil {
			return err
		}
		ropt := analysis.DefaultRegionOptions
		ropt.Compute = splitNonEmpty(*compute)
		runs, err := analysis.ReadRegionRuns(d, ropt)
		if err != nil {
			fmt.Fprintf(stderr, "analyze: application regions not read: %v\n", err)
		}
		return tables.WriteRegionRuns(stdout, runs)
	case "csv":
		return tables.WriteSummaryCSV(stdout, sums)
	case "json":
		return tables.WriteSummaryJSON(stdout, sums, pool)
	case "benchstat":
		return tables.WriteBenchstat(stdout, sums)
	}
	return fmt.Errorf("%w: unknown --format %q", errUsage, o.format)
}
