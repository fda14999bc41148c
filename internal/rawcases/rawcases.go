package rawcases

import (
	"maps"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/rawdata"
)

// Case is one refused input: rows derived from a valid row by replacing
// cells, written as a writer that does not check would write them
// (fields joined by commas, nothing quoted).
type Case struct {
	Name    string
	PerRank bool // rows of a per-rank file (rawdata.RankColumns), else of a raw file (rawdata.Columns)
	// Rows are the rows of the file: each is the valid row with these
	// cells replaced (column name → cell). A name that is not a column is
	// a label column (raw files only).
	Rows []map[string]string
	// Field is the column whose value is refused: the writer's error must
	// name it.
	Field string
	// Spelling marks a value that is fine but spelled as no writer of the
	// format spells it (a hexadecimal float): the writer receives the
	// value, not the spelling, and must write it so that the reader
	// accepts it.
	Spelling bool
}

// Row is a valid row of a raw file, by column.
var Row = map[string]string{"run_id": "r", "mpirun": "0", "exp": "0", "call": "MPI_Bcast", "msize_bytes": "8", "count": "8",
	"datatype": "byte", "np": "2", "rep": "0", "runtime_s": "1e-06", "errorcode": "0"}

// RankRow is a valid row of a per-rank file, by column.
var RankRow = map[string]string{"run_id": "r", "mpirun": "0", "exp": "0", "call": "MPI_Bcast", "msize_bytes": "8", "np": "2",
	"rep": "0", "rank": "1", "local_start_s": "1", "local_end_s": "2", "global_start_s": "1", "global_end_s": "2", "errorcode": "0"}

func one(field, cell string) []map[string]string { return []map[string]string{{field: cell}} }

// Cases are the refused inputs.
var Cases = []Case{
	{Name: "call with a comma", Rows: one("call", "a,b"), Field: "call"},
	{Name: "call with a quote", Rows: one("call", `a"b`), Field: "call"},
	{Name: "call with a line break", Rows: one("call", "a\nb"), Field: "call"},
	{Name: "empty call", Rows: one("call", ""), Field: "call"},
	{Name: "negative msize", Rows: one("msize_bytes", "-8"), Field: "msize_bytes"},
	{Name: "np 0", Rows: one("np", "0"), Field: "np"},
	{Name: "negative exp", Rows: one("exp", "-1"), Field: "exp"},
	{Name: "negative rep", Rows: one("rep", "-1"), Field: "rep"},
	{Name: "rep written twice", Rows: []map[string]string{{"rep": "3"}, {"rep": "3"}}, Field: "rep"},
	{Name: "rep written twice, invalid rows", Rows: []map[string]string{{"rep": "3", "errorcode": "1"}, {"rep": "3", "errorcode": "1"}}, Field: "rep"},
	{Name: "errorcode not an integer", Rows: one("errorcode", "x"), Field: "errorcode"},
	{Name: "mpirun not an integer", Rows: one("mpirun", "x"), Field: "mpirun"},
	{Name: "msize not an integer", Rows: one("msize_bytes", "8.5"), Field: "msize_bytes"},
	{Name: "runtime not a number", Rows: one("runtime_s", "fast"), Field: "runtime_s"},
	{Name: "runtime as a hexadecimal float", Rows: one("runtime_s", "0x1p-20"), Field: "runtime_s", Spelling: true},
	{Name: "runtime with a digit separator", Rows: one("runtime_s", "1_0"), Field: "runtime_s", Spelling: true},
	{Name: "label with a comma", Rows: one("note", "a,b"), Field: "note"},
	{Name: "per-rank: rank ≥ np", PerRank: true, Rows: one("rank", "2"), Field: "rank"},
	{Name: "per-rank: negative rank", PerRank: true, Rows: one("rank", "-1"), Field: "rank"},
	{Name: "per-rank: np 0", PerRank: true, Rows: one("np", "0"), Field: "np"},
	{Name: "per-rank: negative msize", PerRank: true, Rows: one("msize_bytes", "-8"), Field: "msize_bytes"},
	{Name: "per-rank: rank written twice", PerRank: true, Rows: []map[string]string{{"rep": "2"}, {"rep": "2"}}, Field: "rank"},
	{Name: "per-rank: negative rep", PerRank: true, Rows: one("rep", "-1"), Field: "rep"},
	{Name: "per-rank: errorcode not an integer", PerRank: true, Rows: one("errorcode", "x"), Field: "errorcode"},
}

// Labels returns the label columns of c (cells named by no column), sorted.
func (c Case) Labels() []string {
	var out []string
	for _, r := range c.Rows {
		for k := range r {
			if !slices.Contains(c.columns(), k) && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (c Case) columns() []string {
	if c.PerRank {
		return rawdata.RankColumns
	}
	return rawdata.Columns
}

// Cells returns row i of c, by column: the valid row with the case's
// cells (labels included).
func (c Case) Cells(i int) map[string]string {
	base := Row
	if c.PerRank {
		base = RankRow
	}
	m := maps.Clone(base)
	maps.Copy(m, c.Rows[i])
	return m
}

// CSV returns the file the case stands for: the header (the columns, then
// the labels) and the rows, written without quoting.
func (c Case) CSV() string {
	hdr := append(slices.Clone(c.columns()), c.Labels()...)
	var b strings.Builder
	b.WriteString(strings.Join(hdr, ",") + "\n")
	for i := range c.Rows {
		m := c.Cells(i)
		cells := make([]string, len(hdr))
		for j, h := range hdr {
			cells[j] = m[h]
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return b.String()
}
