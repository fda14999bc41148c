package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

func init() {
	register(command{
		name:    "ops",
		summary: "list the operations run --calls takes: one row of the operation table (package mpi) per call, with what it reads, its buffers, datatypes, C entry, simulator model and check",
		run:     runOps,
	})
}

// familyDocs says in one line what each family is, for the listing.
var familyDocs = map[mpi.Family]string{
	mpi.FamilyColl:  "blocking collectives and the ping-pong",
	mpi.FamilyVColl: "v-collectives, the Sendrecv ring, the neighbour exchange (--skew)",
	mpi.FamilyGuide: "mock-ups of the performance guidelines (reprobench guidelines)",
	mpi.FamilyNBC:   "non-blocking collectives: post, then MPI_Wait (--nbc-overlap)",
	mpi.FamilyP2P:   "bandwidth windows (--bw-window) and one-sided operations (--rma-sync)",
}

func runOps(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("ops", "[--format text|csv]", stderr)
	format := fs.String("format", "text", "text (grouped by family, for people) or csv (one row per call, every field)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: ops takes no arguments, have %q", errUsage, fs.Args())
	}
	switch *format {
	case "text":
		return writeOpsText(stdout)
	case "csv":
		return writeOpsCSV(stdout)
	}
	return fmt.Errorf("%w: --format %q: want text or csv", errUsage, *format)
}

func typeNames(ts []mpi.Datatype) string {
	n := make([]string, len(ts))
	for i, t := range ts {
		n[i] = t.ShortName()
	}
	return strings.Join(n, ",")
}

// typesDoc names the two type sets of the table, and lists any other.
func typesDoc(ts []mpi.Datatype) string {
	switch typeNames(ts) {
	case "byte,int32,int64,float32,float64":
		return "all types"
	case "int32,int64,float32,float64":
		return "numeric types"
	}
	return "types " + typeNames(ts)
}

// writeOpsText prints the table grouped by family: per call its name and
// what it does, then what it reads and how it runs.
func writeOpsText(w io.Writer) error {
	fmt.Fprintln(w, "Operations, one row of the operation table (mpi.Ops) per call. --calls takes the names, with or")
	fmt.Fprintln(w, "without MPI_, in any case; n is one rank's message size (--sizes), p the ranks, k the skew. Per call:")
	fmt.Fprintln(w, "the Observation fields it takes, its buffers, datatypes, C entry, simulator model (mpitest), and")
	fmt.Fprintln(w, "whether the checkers compare its receive buffer with its expected result.")
	// The families in the order of their first row; within one, the rows
	// in the table's order (a row added at the end of the table joins its
	// family's group).
	var fams []mpi.Family
	rows := map[mpi.Family][]*mpi.Op{}
	for _, op := range mpi.Ops() {
		if rows[op.Family] == nil {
			fams = append(fams, op.Family)
		}
		rows[op.Family] = append(rows[op.Family], op)
	}
	for _, fam := range fams {
		fmt.Fprintf(w, "\n%s: %s\n", fam, familyDocs[fam])
		for _, op := range rows[fam] {
			writeOpText(w, op)
		}
	}
	return nil
}

// writeOpText prints one row: its name and what it does, then what it
// reads and how it runs.
func writeOpText(w io.Writer, op *mpi.Op) {
	fmt.Fprintf(w, "  %s — %s\n", op.Name, op.Doc)
	var d []string
	if op.Params != 0 {
		d = append(d, "takes "+op.Params.String())
	}
	d = append(d, "buffers "+op.Buffers.Doc, typesDoc(op.Types))
	if op.MinRanks > 1 {
		d = append(d, fmt.Sprintf("≥ %d ranks", op.MinRanks))
	}
	entry := "C " + op.C
	if op.Phased {
		entry += " (phased)"
	}
	if op.Bound {
		entry += ", bound to its buffers"
	}
	sim := "sim " + op.Sim.String()
	if op.Twin != nil {
		sim += " of " + op.Twin.Name
	}
	check := "result checked"
	if op.Result == nil {
		check = "no result to check"
	}
	fmt.Fprintf(w, "      %s\n", strings.Join(append(d, entry, sim, check), "; "))
}

func twinName(op *mpi.Op) string {
	if op.Twin == nil {
		return ""
	}
	return op.Twin.Name
}

// writeOpsCSV prints every field of every row.
func writeOpsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"call", "family", "doc", "params", "buffers", "types", "min_ranks", "twin", "c_entry", "phased", "bound", "go_path", "sim_model", "result"})
	for _, op := range mpi.Ops() {
		_ = cw.Write([]string{op.Name, op.Family.String(), op.Doc, op.Params.String(), op.Buffers.Doc, typeNames(op.Types),
			strconv.Itoa(op.MinRanks), twinName(op), op.C, strconv.FormatBool(op.Phased), strconv.FormatBool(op.Bound), strconv.FormatBool(op.Go != nil),
			op.Sim.String(), strconv.FormatBool(op.Result != nil)})
	}
	cw.Flush()
	return cw.Error()
}
