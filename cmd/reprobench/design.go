package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

func init() {
	register(command{
		name:    "design",
		summary: "write a randomized full-factorial design file (experiments shuffled per mpirun from a recorded seed)",
		run:     runDesign,
	})
}

// designCLIVocabulary is the set of values the engine accepts in a design
// file.
func designCLIVocabulary() design.Vocabulary { return reprobench.Vocabulary() }

// designListFlag is a comma-separated list flag that may also be repeated.
type designListFlag []string

func (l *designListFlag) String() string { return strings.Join(*l, ",") }
func (l *designListFlag) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l = append(*l, f)
		}
	}
	return nil
}

// designRepeatFlag collects each occurrence whole (clock sync specs may
// contain commas).
type designRepeatFlag []string

func (l *designRepeatFlag) String() string { return strings.Join(*l, " ") }
func (l *designRepeatFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// randomSeed draws a seed from the operating system.
func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("reprobench: crypto/rand: " + err.Error())
	}
	return binary.LittleEndian.Uint64(b[:])
}

func runDesign(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("design", "[-o FILE] [--seed S] [--mpiruns N] [--replicates R] [factor flags]", stderr)
	out := fs.String("o", "-", "output design file (\"-\": stdout); an existing file is never overwritten")
	seedStr := fs.String("seed", "", "seed of the shuffles and random sizes (uint64; default: random, printed to stderr)")
	mpiruns := fs.Int("mpiruns", 10, "number of mpiruns (Hunold & Carpen-Amarie 2016, §5.2: the mpirun is a factor)")
	replicates := fs.Int("replicates", 1, "replicates of each combination per mpirun")
	var calls, nps, datatypes, nreps designListFlag
	var factors designRepeatFlag
	fs.Var(&calls, "calls", "MPI `calls`, comma-separated (e.g. MPI_Bcast,MPI_Allreduce,pingpong; \"reprobench ops\" lists them)")
	msizes := fs.String("sizes", "", "message `sizes` in bytes: a list 8,64,1K, pow2:A..B, or logu:A..B:COUNT[:STEP] (log-uniform, Stanisic et al. 2017, §V; STEP: multiples, e.g. 8 for float64), or several of these comma-separated; K/M/G = 1024^1/2/3")
	fs.Var(&nps, "np", "process `counts`, comma-separated (default: all ranks of the mpirun)")
	fs.Var(&datatypes, "datatype", "element `types`, comma-separated (byte, int32, int64, float32, float64; as run's --datatype)")
	fs.Var(&nreps, "nrep", "observations per experiment, comma-separated `levels`")
	levels := designFactorFlags(fs) // every factor a design row sets (factors.go)
	for old, now := range renamedRunFlags {
		removedFlag(fs, old, now)
	}
	fs.Var(&factors, "factor", "user factor `key=v1,v2,…` (repeatable); becomes column label:key")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: design takes no arguments, got %q", errUsage, fs.Args())
	}
	usage := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
	}

	seed := randomSeed()
	if *seedStr != "" {
		s, err := strconv.ParseUint(*seedStr, 10, 64)
		if err != nil {
			return usage("--seed %q: want a decimal uint64", *seedStr)
		}
		seed = s
	}
	p := design.Plan{Mpiruns: *mpiruns, Replicates: *replicates, Seed: seed}
	if *mpiruns < 1 || *replicates < 1 {
		return usage("--mpiruns and --replicates must be at least 1")
	}
	f := &p.Factors
	var err error
	var parsedCalls []mpi.Call
	for _, c := range calls {
		call, err := mpi.ParseCall(c)
		if err != nil {
			return usage("--calls: %v", err)
		}
		parsedCalls = append(parsedCalls, call)
		f.Calls = append(f.Calls, call.String())
	}
	if *msizes != "" {
		// Refuse an oversized design before drawing its sizes.
		if n, err := design.CountSizes(*msizes); err == nil && n > design.MaxRows / *mpiruns / *replicates {
			return usage("--sizes: %d sizes × %d mpiruns × %d replicates is more than %d rows", n, *mpiruns, *replicates, design.MaxRows)
		}
		if f.MsizesBytes, err = design.ParseSizes(*msizes, seed); err != nil {
			return usage("--sizes: %v", err)
		}
	}
	ints := func(name string, l []string) ([]int, error) {
		var r []int
		for _, s := range l {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return nil, usage("--%s: %q is not a positive integer", name, s)
			}
			r = append(r, n)
		}
		return r, nil
	}
	if f.Nps, err = ints("np", nps); err != nil {
		return err
	}
	if f.Nreps, err = ints("nrep", nreps); err != nil {
		return err
	}
	for _, s := range datatypes {
		d, err := mpi.ParseDatatype(s)
		if err != nil {
			return usage("--datatype: %v", err)
		}
		f.Datatypes = append(f.Datatypes, d.ShortName())
		for _, c := range parsedCalls {
			if c.Reduces() {
				if err := mpi.CheckReduce(d, mpi.Sum); err != nil {
					return usage("%v with --datatype %s: %v", c, d.ShortName(), err)
				}
			}
		}
		for _, m := range f.MsizesBytes {
			if m%d.Size() != 0 {
				return usage("message size %d bytes is not a multiple of %s's %d bytes (use --datatype byte for arbitrary sizes)", m, d.ShortName(), d.Size())
			}
		}
	}
	if len(datatypes) == 0 {
		for _, m := range f.MsizesBytes {
			if m%8 != 0 {
				fmt.Fprintf(stderr, "design: warning: message size %d bytes is not a multiple of 8, which run's default datatype float64 needs; add --datatype byte\n", m)
				break
			}
		}
	}
	for _, id := range factor.DesignColumns() {
		for _, s := range *levels[id] {
			cell, err := reprobench.DesignLevel(id, s)
			if err != nil {
				return usage("--%s: %v", id.Row().Flag, err)
			}
			f.Levels[id] = append(f.Levels[id], cell)
		}
	}
	if err := checkDesignSkews(f.Levels[factor.Skew], calls); err != nil {
		return usage("%v", err)
	}
	for _, s := range factors {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return usage("--factor %q: want key=v1,v2", s)
		}
		var levels designListFlag
		_ = levels.Set(v)
		f.Labels = append(f.Labels, design.Factor{Name: k, Levels: levels})
	}
	p.Comments = []string{" generated by: reprobench design " + strings.Join(args, " ")}

	d, err := design.Generate(p)
	if err != nil {
		return usage("%v", err)
	}
	fmt.Fprintf(stderr, "design: seed %d: %d combinations × %d replicates × %d mpiruns = %d experiments\n",
		seed, f.Points(), *replicates, *mpiruns, len(d.Experiments))
	if *out == "-" {
		return design.Write(stdout, d)
	}
	if err := design.WriteFile(*out, d); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "design: wrote %s\n", *out)
	return nil
}
