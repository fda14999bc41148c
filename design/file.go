package design

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/factor"
)

// The columns of a design file, in the order Write puts them: the place
// and size of the experiment, then the factor table's design columns in
// the table's design order (factor.DesignColumns: procsync, window_s,
// clocksync, runtime_type, cache, skew, noise_guard, bw_window, rma_sync,
// in_place, root_shift, buf_offset). User factors follow as "label:KEY"
// columns.
var Columns = slices.Concat([]string{"mpirun", "exp", "np", "call", "msize_bytes", "datatype", "nrep"}, factorColumns())

// factorColumns returns the names of the factor table's design columns,
// in design order.
func factorColumns() []string {
	var out []string
	for _, id := range factor.DesignColumns() {
		out = append(out, id.String())
	}
	return out
}

// labelPrefix starts the name of a column holding a user factor.
const labelPrefix = "label:"

// formatLine is the first line Write puts in a design file.
const formatLine = "# reprobench design v1"

// ParseError is a problem in a design file, located by file, line and (when
// it concerns one cell) column.
type ParseError struct {
	File   string // file name ("" when reading an unnamed stream)
	Line   int    // 1-based line number
	Column int    // 1-based column number (0: the whole line)
	Name   string // column name, when known
	Err    error
}

// Error formats the error as FILE:LINE: column C (NAME): problem.
func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("design")
	}
	fmt.Fprintf(&b, ":%d", e.Line)
	if e.Column > 0 {
		fmt.Fprintf(&b, ": column %d", e.Column)
		if e.Name != "" {
			fmt.Fprintf(&b, " (%s)", e.Name)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ReadFile reads the design file at path; values are checked against vocab.
// Errors are *ParseError values naming the file, the line and the column.
func ReadFile(path string, vocab Vocabulary) (*Design, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, vocab)
}

// Read reads a design from r; name is used in error messages and in the
// File field of the experiments.
//
// The format: optional comment lines starting with "#" (one of them may be
// "# seed=N", N a decimal uint64, recording the seed of the shuffle), then a
// header row naming the columns (any order; "mpirun" and "exp" are
// required, the others of [Columns] optional, plus "label:KEY" columns with
// KEY made of letters, digits, '_', '-' and '.'), then one row per
// experiment. Blank lines and later lines starting with "#" are skipped.
// Cells may be quoted as in RFC 4180; leading spaces are ignored. An empty
// cell means "the run's default". Integers are non-negative decimals,
// window_s a non-negative finite float. (mpirun, exp) must be unique.
func Read(r io.Reader, name string, vocab Vocabulary) (*Design, error) {
	d := &Design{}
	br := bufio.NewReader(r)
	perr := func(line, col int, colName string, format string, args ...any) error {
		return &ParseError{File: name, Line: line, Column: col, Name: colName, Err: fmt.Errorf(format, args...)}
	}

	// Leading comments and blank lines, read here so the seed line is seen.
	if b, err := br.Peek(3); err == nil && string(b) == "\uFEFF" {
		br.Discard(3) // a byte order mark
	}
	line := 0
	for {
		b, err := br.Peek(1)
		if err != nil || (b[0] != '#' && b[0] != '\n' && b[0] != '\r') {
			break
		}
		s, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, err
		}
		line++
		s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
		if strings.ContainsRune(s, '\r') {
			return nil, perr(line, 0, "", "carriage return inside a line")
		}
		if strings.HasPrefix(s, "#") {
			c := strings.TrimSpace(s[1:])
			if v, ok := strings.CutPrefix(c, "seed="); ok {
				if d.HasSeed {
					return nil, perr(line, 0, "", "second seed line")
				}
				seed, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return nil, perr(line, 0, "", "bad seed %q: want a decimal uint64", v)
				}
				d.Seed, d.HasSeed = seed, true
			} else if line != 1 || s != formatLine {
				d.Comments = append(d.Comments, s[1:])
			}
		} else if strings.TrimSpace(s) != "" {
			return nil, perr(line, 0, "", "unexpected text before the header: %q", s)
		}
		if err == io.EOF {
			break
		}
	}
	offset := line

	cr := csv.NewReader(br)
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	fixLine := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &ParseError{File: name, Line: pe.Line + offset, Column: pe.Column, Err: pe.Err}
		}
		return err
	}

	header, err := cr.Read()
	if err == io.EOF {
		return nil, perr(offset+1, 0, "", "no header row (want columns like %s)", strings.Join(Columns, ","))
	}
	if err != nil {
		return nil, fixLine(err)
	}
	hline, _ := cr.FieldPos(0)
	hline += offset
	kinds := make([]string, len(header)) // column name, or the label key prefixed
	seen := map[string]bool{}
	for i, h := range header {
		switch {
		case strings.HasPrefix(h, labelPrefix):
			key := h[len(labelPrefix):]
			if err := checkLabelKey(key); err != nil {
				return nil, perr(hline, i+1, h, "%v", err)
			}
		case isColumn(h):
		default:
			return nil, perr(hline, i+1, h, "unknown column %q (known: %s, and %sKEY)", h, strings.Join(Columns, ","), labelPrefix)
		}
		if seen[h] {
			return nil, perr(hline, i+1, h, "duplicate column %q", h)
		}
		seen[h] = true
		kinds[i] = h
	}
	for _, req := range []string{"mpirun", "exp"} {
		if !seen[req] {
			return nil, perr(hline, 0, "", "missing required column %q", req)
		}
	}
	cr.FieldsPerRecord = len(header)

	type key struct{ m, e int }
	where := map[key]int{}
	firstOf := map[int]Experiment{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if errors.Is(err, csv.ErrFieldCount) {
			l, _ := cr.FieldPos(0)
			return nil, perr(l+offset, 0, "", "%d fields, but the header has %d", len(rec), len(header))
		}
		if err != nil {
			return nil, fixLine(err)
		}
		l, _ := cr.FieldPos(0)
		e := Experiment{File: name, Line: l + offset}
		for i, v := range rec {
			cerr := func(format string, args ...any) error {
				return perr(e.Line, i+1, kinds[i], format, args...)
			}
			if strings.ContainsAny(v, "\r\n") {
				return nil, cerr("line break inside a value")
			}
			if err := setField(&e, kinds[i], v, vocab); err != nil {
				return nil, cerr("%v", err)
			}
		}
		k := key{e.Mpirun, e.Exp}
		if prev, dup := where[k]; dup {
			return nil, perr(e.Line, 0, "", "mpirun %d exp %d already defined on line %d", e.Mpirun, e.Exp, prev)
		}
		where[k] = e.Line
		// The raw data identify a configuration by its exp across mpiruns.
		if first, ok := firstOf[e.Exp]; ok && first.config() != e.config() {
			return nil, perr(e.Line, 0, "", "exp %d is a different configuration from exp %d on line %d (%s here, %s there): an experiment number must name the same configuration in every mpirun",
				e.Exp, e.Exp, first.Line, e.config(), first.config())
		} else if !ok {
			firstOf[e.Exp] = e
		}
		d.Experiments = append(d.Experiments, e)
	}
	return d, nil
}

func isColumn(h string) bool {
	for _, c := range Columns {
		if c == h {
			return true
		}
	}
	return false
}

func checkLabelKey(key string) error {
	if key == "" {
		return errors.New("empty label key")
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Errorf("label key %q: only letters, digits, '_', '-' and '.' are allowed", key)
		}
	}
	return nil
}

// setField parses v into the field of e named by column.
func setField(e *Experiment, column, v string, vocab Vocabulary) error {
	uint := func(p *int) error {
		if v == "" {
			*p = 0
			return nil
		}
		n, err := strconv.ParseInt(v, 10, 0)
		if err != nil {
			return fmt.Errorf("%q is not an integer", v)
		}
		if n < 0 {
			return fmt.Errorf("%d is negative", n)
		}
		*p = int(n)
		return nil
	}
	str := func(p *string, list []string) error {
		if !allowed(list, v) {
			return notAllowed(list, v)
		}
		*p = v
		return nil
	}
	switch column {
	case "mpirun", "exp":
		if v == "" {
			return fmt.Errorf("%s must not be empty", column)
		}
		if column == "mpirun" {
			return uint(&e.Mpirun)
		}
		return uint(&e.Exp)
	case "np", "nrep", "msize_bytes":
		// 0 would silently mean "the run's default", which an empty cell says.
		if v != "" {
			if n, err := strconv.ParseInt(v, 10, 0); err == nil && n == 0 {
				return fmt.Errorf("%s 0 is not a valid level (leave the cell empty for the run's default)", column)
			}
		}
		switch column {
		case "np":
			return uint(&e.Np)
		case "nrep":
			e.NrepAuto = strings.EqualFold(v, "auto")
			if e.NrepAuto {
				e.Nrep = 0
				return nil
			}
			return uint(&e.Nrep)
		}
		return uint(&e.MsizeBytes)
	case "call":
		return str(&e.Call, vocab.Calls)
	case "datatype":
		return str(&e.Datatype, vocab.Datatypes)
	}
	if f := factor.Lookup(column); f != nil && f.Scope != factor.PerMpirun { // the table's rows: cells
		return setCell(&e.Factors, f, v, vocab)
	}
	key := strings.TrimPrefix(column, labelPrefix)
	if v != "" {
		if e.Labels == nil {
			e.Labels = map[string]string{}
		}
		e.Labels[key] = v
	}
	return nil
}

// setCell sets f's cell in x from the text v of a design file, by the
// row's kind: an empty cell unsets it; text is checked against vocab;
// seconds are read as a non-negative number rounded to the nanosecond (0
// unsets it: the run's window); the other kinds by the row's Parse.
func setCell(x *factor.Values, f *factor.Factor, v string, vocab Vocabulary) error {
	switch {
	case v == "":
		x.Clear(f.ID)
		return nil
	case f.Kind == factor.KindText:
		if l := vocab.Levels[f.ID]; !allowed(l, v) {
			return notAllowed(l, v)
		}
		if check := vocab.Check[f.ID]; check != nil && v != factor.LevelNone {
			if err := check(v); err != nil {
				return err
			}
		}
		x.SetText(f.ID, v)
		return nil
	case f.Kind == factor.KindSeconds:
		d, err := parseSeconds(v)
		if err != nil {
			return err
		}
		if d == 0 {
			x.Clear(f.ID)
		} else {
			x.Set(f.ID, int64(d))
		}
		return nil
	case v == "0" && f.Kind == factor.KindInt && f.Min > 0:
		return fmt.Errorf("%s 0 is not a valid level (leave the cell empty for the run's default)", f.Name)
	}
	return x.SetCell(f.ID, v)
}

// parseSeconds reads a design file's seconds: a non-negative finite
// number, rounded to the nanosecond; a positive number below half a
// nanosecond is refused (it would read as 0, the run's level).
func parseSeconds(v string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > float64(math.MaxInt64)/1e9 {
		return 0, fmt.Errorf("%v is not a non-negative finite number of seconds", f)
	}
	d := time.Duration(math.Round(f * 1e9))
	if f > 0 && d == 0 {
		return 0, fmt.Errorf("%v s is below a nanosecond", f)
	}
	return d, nil
}

// Write writes d to w in the format that Read reads: the format line, the
// seed line (when d.HasSeed), d.Comments, the header with the columns of
// [Columns] (noise_guard only when a row sets it, a call parameter only
// when a row sets one of its family's) followed by one "label:KEY" column per label key (sorted), and
// one row per experiment, grouped by mpirun in increasing order and in
// execution order within each mpirun. Zero values are written as empty
// cells.
func Write(w io.Writer, d *Design) error {
	if err := validateForWrite(d); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, formatLine)
	if d.HasSeed {
		fmt.Fprintf(bw, "# seed=%d\n", d.Seed)
	}
	for _, c := range d.Comments {
		fmt.Fprintf(bw, "#%s\n", c)
	}
	cw := csv.NewWriter(bw)
	keys := d.LabelKeys()
	// A call parameter's column only when some row sets a parameter of
	// its family, so that designs without them keep their columns.
	families := map[string]bool{}
	for _, e := range d.Experiments {
		for _, id := range factor.CallParams() {
			if e.Factors.Has(id) {
				families[id.Row().Family] = true
			}
		}
	}
	var params []factor.ID // the call parameters' columns written
	for _, id := range factor.CallParams() {
		if families[id.Row().Family] {
			params = append(params, id)
		}
	}
	header := append([]string{}, Columns...)
	header = slices.DeleteFunc(header, func(c string) bool {
		f := factor.Lookup(c)
		return f != nil && f.Call && !slices.Contains(params, f.ID)
	})
	guard := false // the noise_guard column only when a row sets it
	for _, m := range d.Mpiruns() {
		for _, e := range d.Mpirun(m) {
			guard = guard || e.Factors.Has(factor.NoiseGuard)
		}
	}
	if !guard {
		header = slices.DeleteFunc(header, func(c string) bool { return c == factor.NoiseGuard.String() })
	}
	for _, k := range keys {
		header = append(header, labelPrefix+k)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	itoa := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	for _, m := range d.Mpiruns() {
		for _, e := range d.Mpirun(m) {
			rec := []string{strconv.Itoa(e.Mpirun), strconv.Itoa(e.Exp), itoa(e.Np), e.Call, itoa(e.MsizeBytes),
				e.Datatype, e.nrepCell()}
			for _, c := range header[len(rec):] { // the factor table's columns
				if f := factor.Lookup(c); f != nil {
					cell := e.Factors.Cell(f.ID)
					if v, _ := e.Factors.Get(f.ID); f.Kind == factor.KindSeconds && v == 0 {
						cell = "" // 0 s: the run's level, as an empty cell reads
					}
					rec = append(rec, cell)
				}
			}
			for _, k := range keys {
				rec = append(rec, e.Labels[k])
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

func validateForWrite(d *Design) error {
	for _, c := range d.Comments {
		if strings.ContainsAny(c, "\r\n") {
			return fmt.Errorf("design: comment %q contains a line break", c)
		}
		if strings.HasPrefix(strings.TrimSpace(c), "seed=") {
			return fmt.Errorf("design: comment %q would be read as the seed line", c)
		}
	}
	type key struct{ m, e int }
	seen := map[key]bool{}
	for i, e := range d.Experiments {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("design: experiment %d (mpirun %d exp %d): %s", i, e.Mpirun, e.Exp, fmt.Sprintf(format, args...))
		}
		if e.Mpirun < 0 || e.Exp < 0 || e.Np < 0 || e.MsizeBytes < 0 || e.Nrep < 0 {
			return bad("negative integer")
		}
		for _, id := range factor.DesignColumns() {
			if !e.Factors.Has(id) {
				continue
			}
			if id.Row().Kind == factor.KindText {
				if c := e.Factors.Cell(id); strings.ContainsAny(c, "\r\n") {
					return bad("value %q contains a line break", c)
				}
			} else if err := e.Factors.SetCell(id, e.Factors.Cell(id)); err != nil {
				return bad("%v", err)
			}
		}
		for _, id := range factor.Table() {
			if id.Scope == factor.PerMpirun && e.Factors.Has(id.ID) {
				return bad("%s is set per mpirun by the launcher, not by a design row", id.Name)
			}
		}
		k := key{e.Mpirun, e.Exp}
		if seen[k] {
			return bad("duplicate (mpirun, exp)")
		}
		seen[k] = true
		for _, s := range []string{e.Call, e.Datatype} {
			if strings.ContainsAny(s, "\r\n") {
				return bad("value %q contains a line break", s)
			}
		}
		for k, v := range e.Labels {
			if v == "" {
				continue
			}
			if err := checkLabelKey(k); err != nil {
				return bad("%v", err)
			}
			if strings.ContainsAny(v, "\r\n") {
				return bad("label %s=%q contains a line break", k, v)
			}
		}
	}
	return nil
}

// WriteFile writes d to path atomically: to a temporary file in the same
// directory, fsynced, then renamed. It refuses to replace an existing file.
func WriteFile(path string, d *Design) error {
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("design: %s already exists; not overwriting it", path)
	}
	return WriteAtomic(path, buf.Bytes(), false)
}

// WriteAtomic writes data to path through a temporary file in the same
// directory (fsync, rename, fsync of the directory), so that path holds
// either nothing or all of data, even after a crash. With replace false it
// fails if path exists (checked by a hard link, so no race replaces it).
func WriteAtomic(path string, data []byte, replace bool) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if replace {
		err = os.Rename(tmp, path)
	} else {
		// link fails with EEXIST instead of replacing path.
		err = os.Link(tmp, path)
	}
	if err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir fsyncs directory dir, so that a rename or link into it survives
// a crash (file systems that cannot sync a directory are accepted).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
