package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// factorTable is the factor table whose Group flags decide which factor
// columns enter the group key (factor.Table; a test replaces it).
var factorTable = factor.Table

// UngroupedColumns returns the columns read as covariates unless
// Dataset.GroupBy names them (the columns GroupBy may name): the recorded covariates
// (rawdata.CovariateColumns), then the factor table's columns whose row
// does not enter the group key (factor.Factor.Group false), in table
// order. Every other factor column enters the group key, as a label does.
func UngroupedColumns() []string {
	out := slices.Clone(rawdata.CovariateColumns)
	for _, f := range factorTable() {
		if !f.Group {
			out = append(out, f.Name)
		}
	}
	return out
}

// ungroupedFactor reports whether column h is a factor table column that
// does not enter d's group keys: its row's Group is false and d.GroupBy
// does not name it.
func (d *Dataset) ungroupedFactor(h string) bool {
	for _, f := range factorTable() {
		if f.Name == h {
			return !f.Group && !slices.Contains(d.GroupBy, h)
		}
	}
	return false
}

// rawColumns are the required columns of a raw observation file, in the
// order the engine writes them (rawdata.Columns, which defines the format).
// Any other column is a free-form label (e.g. mpi_lib, sync) that becomes
// part of the group key, but the covariates (UngroupedColumns).
var rawColumns = rawdata.Columns

// perRankColumns are the required columns of a per-rank file (engine flag
// --per-rank; rawdata.RankColumns).
var perRankColumns = rawdata.RankColumns

// nameValue is one free-form label of a group.
type nameValue struct{ Name, Value string }

// GroupKey identifies a group of observations (Hunold & Carpen-Amarie 2016, Alg. 6: message
// size, function, number of processes; plus datatype and every label).
type GroupKey struct {
	Call       string
	MsizeBytes int
	Np         int
	Datatype   string
	Labels     string // canonical "name=value,name=value" (sorted by name)
	// Region marks a group of application regions (package region): its
	// rows fill rawdata.RegionColumns. Its message size and datatype mean
	// nothing, and String leaves them out.
	Region bool
}

// String renders the key the way the CLI prints it: call/msize=N/np=P,
// the datatype and the labels; for a region group (Region) the region's
// label first, then np and the other labels ("region=compute/np=4/phase=x"),
// with the call in front only when it is not the recorder's default
// "region".
func (k GroupKey) String() string {
	if k.Region {
		return k.regionString()
	}
	s := fmt.Sprintf("%s/msize=%d/np=%d", k.Call, k.MsizeBytes, k.Np)
	if k.Datatype != "" {
		s += "/" + k.Datatype
	}
	if k.Labels != "" {
		s += "/" + strings.ReplaceAll(k.Labels, ",", "/")
	}
	return s
}

func (k GroupKey) regionString() string {
	var parts []string
	if k.Call != "" && k.Call != rawdata.RegionCall {
		parts = append(parts, k.Call)
	}
	var rest []string
	for _, kv := range splitLabels(k.Labels) {
		if kv.Name == rawdata.RegionLabel {
			parts = append(parts, kv.Name+"="+kv.Value)
		} else {
			rest = append(rest, kv.Name+"="+kv.Value)
		}
	}
	parts = append(parts, fmt.Sprintf("np=%d", k.Np))
	return strings.Join(append(parts, rest...), "/")
}

// LabelValue returns the value of label name in the key ("" if absent).
func (k GroupKey) LabelValue(name string) string {
	for _, kv := range splitLabels(k.Labels) {
		if kv.Name == name {
			return kv.Value
		}
	}
	return ""
}

// WithoutLabel returns the key with label name removed.
func (k GroupKey) WithoutLabel(name string) GroupKey {
	var parts []string
	for _, kv := range splitLabels(k.Labels) {
		if kv.Name != name {
			parts = append(parts, kv.Name+"="+kv.Value)
		}
	}
	k.Labels = strings.Join(parts, ",")
	return k
}

func splitLabels(s string) []nameValue {
	if s == "" {
		return nil
	}
	var out []nameValue
	for _, p := range strings.Split(s, ",") {
		n, v, _ := strings.Cut(p, "=")
		out = append(out, nameValue{n, v})
	}
	return out
}

// MpirunID names one mpirun: the campaign and the index of the mpirun in it.
type MpirunID struct {
	RunID  string
	Mpirun int
}

// Group holds the observations of one group in a compact form: the valid run
// times in file order and, in parallel, the index (into Dataset.Mpiruns) of
// the mpirun each came from.
type Group struct {
	Key      GroupKey
	Runtimes []float64 // seconds, valid observations only
	Mpirun   []int32
	// Covariates holds, per recorded covariate column read (not grouped
	// by: Dataset.GroupBy), each mpirun's value (index into
	// Dataset.Mpiruns), covariateMixed when the mpirun's valid rows of
	// this group had more than one value.
	Covariates map[string]map[int32]string
	// Invalid counts observations with a nonzero errorcode (started late,
	// window expired, …); they are not in Runtimes.
	Invalid int
	// Bad counts observations with errorcode 0 whose runtime_s is NaN,
	// infinite or negative: they are skipped (not in Runtimes) and the
	// analysis warns about them.
	Bad int
	// WrongResults counts the invalid observations whose errorcode has
	// the bit rawdata.ErrorCodeWrongResult: the result check found the
	// operation's result wrong.
	WrongResults int
}

// perRankGroup holds per-rank completion times (local_end_s −
// local_start_s) of the valid observations of one (call, msize, np) group,
// and of its labels where the per-rank file has label columns (region
// runs, rawdata.Experiment.Region).
type perRankGroup struct {
	Key    GroupKey // Datatype empty; Labels empty unless the file has label columns
	ByRank map[int][]float64
}

// Dataset is everything read from one or more raw files.
type Dataset struct {
	Groups []*Group
	// Mpiruns are the mpiruns read, in the order of their first row
	// (valid or not); Group.Mpirun indexes it.
	Mpiruns []MpirunID
	// PerRank holds the groups read from per-rank files, if any.
	PerRank []*perRankGroup
	Rows    int // data rows read (all kinds)

	// KeepDuplicates makes Read keep rows whose key (see DuplicateError)
	// was read before, counting them in Duplicates, instead of failing.
	KeepDuplicates bool
	// Duplicates counts the rows kept under KeepDuplicates.
	Duplicates int
	// Files are the names passed to Read, in order.
	Files []string
	// GroupBy lists covariate columns (rawdata.CovariateColumns, and the
	// factor table's columns whose row does not group: UngroupedColumns)
	// that enter the group key as labels do; set it before Read. The others
	// are read as covariates (Group.Covariates, Covariates), which mode
	// detection uses to say what explains a split (GroupSummary.Modes).
	GroupBy []string
	// Covariates are the covariate columns read and not grouped by.
	Covariates []string

	seen     map[obsKey]*repSet
	lastSeen *repSet
	lastObs  obsKey

	index   map[string]int
	mpIndex map[MpirunID]int32
	prIndex map[string]int
	byKey   map[GroupKey]int
	keyBuf  []byte
	lastKey []byte // raw key of the previous row and its group
	lastGi  int
	lastMi  int32 // mpirun of the previous row, −1 if none
}

// NewDataset returns an empty Dataset to Read files into.
func NewDataset() *Dataset {
	return &Dataset{index: map[string]int{}, byKey: map[GroupKey]int{}, mpIndex: map[MpirunID]int32{}, prIndex: map[string]int{}, lastMi: -1, lastKey: []byte{0xff}}
}

// ReadRaw reads one raw file (see rawColumns) or per-rank file (see
// perRankColumns), detected by its header, into a new Dataset.
func ReadRaw(r io.Reader, name string) (*Dataset, error) {
	d := NewDataset()
	return d, d.Read(r, name)
}

// ReadFiles adds the raw and per-rank files of names to d, in order (Read
// on each; the errors name the file and line). A file whose sidecar (BASE.json
// beside BASE.csv or BASE.ranks.csv) has a newer major format version is
// refused (rawdata.CheckCSVVersion).
func (d *Dataset) ReadFiles(names ...string) error {
	for _, n := range names {
		if err := rawdata.CheckCSVVersion(n); err != nil {
			return err
		}
		f, err := os.Open(n)
		if err != nil {
			return err
		}
		err = d.Read(f, n)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// errFormat is wrapped by every error about malformed input.
var errFormat = errors.New("malformed raw data")

// Read adds the rows of one raw or per-rank CSV file to d. name is used in
// error messages. Repeated header lines (files concatenated with cat) are
// skipped. Errors name the file and line; rows with a wrong number of
// fields, unparsable numbers or an unknown file kind are errors, never
// skipped silently.
func (d *Dataset) Read(r io.Reader, name string) error {
	if r == nil {
		return fmt.Errorf("analysis: %s: no reader (nil)", name)
	}
	d.Files = append(d.Files, name)
	cr := newLineReader(r)
	hdr, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("%w: %s: empty file (no header)", errFormat, name)
	}
	if err != nil {
		return readError(name, cr, err)
	}
	hdr = slices.Clone(hdr)
	for i := range hdr {
		hdr[i] = strings.Clone(hdr[i]) // the reader reuses its buffer
	}
	if len(hdr) > 0 {
		hdr[0] = strings.TrimPrefix(hdr[0], "\ufeff")
	}
	col := map[string]int{}
	for i, h := range hdr {
		h = strings.TrimSpace(h)
		hdr[i] = h
		if h == "" {
			return fmt.Errorf("%w: %s: empty column name in header (column %d)", errFormat, name, i+1)
		}
		if _, dup := col[h]; dup {
			return fmt.Errorf("%w: %s: duplicate column %q", errFormat, name, h)
		}
		col[h] = i
	}
	if _, ok := col["rank"]; ok {
		if _, ok := col["local_start_s"]; ok {
			return d.readPerRank(cr, name, hdr, col)
		}
	}
	return d.readObs(cr, name, hdr, col)
}

func missing(col map[string]int, want []string) []string {
	var m []string
	for _, w := range want {
		if _, ok := col[w]; !ok {
			m = append(m, w)
		}
	}
	return m
}

// nextRecord returns the next data record of a raw or per-rank file and its
// line number, counting it in d.Rows. Repeated header lines (concatenated
// files) are skipped; a record with another number of fields than the header
// is an error. At the end of the input it returns a nil record.
func (d *Dataset) nextRecord(cr *lineReader, name string, hdr []string) ([]string, int, error) {
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil, 0, nil
		}
		line := cr.start
		if err != nil {
			return nil, 0, readError(name, cr, err)
		}
		if len(rec) != len(hdr) {
			return nil, 0, fmt.Errorf("%w: %s:%d: %d fields, header has %d", errFormat, name, line, len(rec), len(hdr))
		}
		if isHeader(rec, hdr) {
			continue
		}
		d.Rows++
		return rec, line, nil
	}
}

// readError wraps an error of the line reader with the file name (and, for
// a truncated last line, its number).
func readError(name string, cr *lineReader, err error) error {
	if errors.Is(err, ErrUnterminated) {
		return fmt.Errorf("%w: %s:%d: %w", errFormat, name, cr.line, err)
	}
	return fmt.Errorf("%w: %s: %v", errFormat, name, err)
}

func isHeader(rec, hdr []string) bool {
	if len(rec) != len(hdr) {
		return false
	}
	for i := range rec {
		if strings.TrimSpace(rec[i]) != hdr[i] {
			return false
		}
	}
	return true
}

func (d *Dataset) readObs(cr *lineReader, name string, hdr []string, col map[string]int) error {
	if m := missing(col, rawColumns); len(m) > 0 {
		return fmt.Errorf("%w: %s: missing column(s) %s (header: %s)", errFormat, name, strings.Join(m, ", "), strings.Join(hdr, ","))
	}
	known := map[string]bool{}
	for _, c := range rawColumns {
		known[c] = true
	}
	for _, c := range rawdata.OverlapValueColumns { // nbc: values, not labels
		known[c] = true
	}
	for _, c := range rawdata.RegionColumns { // region rows: values, not labels
		known[c] = true
	}
	type cov struct {
		name string
		idx  int
	}
	var covs []cov // covariates: neither group key nor values
	for _, c := range UngroupedColumns() {
		if i, ok := col[c]; ok && !slices.Contains(d.GroupBy, c) {
			known[c] = true
			covs = append(covs, cov{c, i})
			if !slices.Contains(d.Covariates, c) {
				d.Covariates = append(d.Covariates, c)
			}
		}
	}
	type lab struct {
		name string
		idx  int
	}
	var labels []lab
	for i, h := range hdr {
		if !known[h] {
			labels = append(labels, lab{h, i})
		}
	}
	slices.SortFunc(labels, func(a, b lab) int { return strings.Compare(a.name, b.name) })
	cRun, cMp, cCall, cMsize, cDT, cNP, cRT, cErr := col["run_id"], col["mpirun"], col["call"], col["msize_bytes"], col["datatype"], col["np"], col["runtime_s"], col["errorcode"]
	cExp, cRep := col["exp"], col["rep"]
	cNranks, hasRegion := col["nranks"] // a region row fills nranks
	for {
		rec, line, err := d.nextRecord(cr, name, hdr)
		if rec == nil || err != nil {
			return err
		}
		ec, err := strconv.Atoi(rec[cErr])
		if err != nil {
			return fmt.Errorf("%w: %s:%d: errorcode %q is not an integer", errFormat, name, line, rec[cErr])
		}
		mp, err := strconv.Atoi(rec[cMp])
		if err != nil {
			return fmt.Errorf("%w: %s:%d: mpirun %q is not an integer", errFormat, name, line, rec[cMp])
		}
		if err := d.noteKey(rec, cRun, mp, cExp, cRep, -1, name, line); err != nil {
			return err
		}
		rt, err := ParseDecimal(rec[cRT])
		if err != nil && ec == 0 {
			return fmt.Errorf("%w: %s:%d: runtime_s: %v", errFormat, name, line, err)
		}
		if rec[cCall] == "" {
			return fmt.Errorf("%w: %s:%d: empty call", errFormat, name, line)
		}
		// Group key bytes: call \x00 msize \x00 np \x00 datatype \x00 labels
		// (raw text; msize and np are parsed once per distinct key).
		b := d.keyBuf[:0]
		b = append(b, rec[cCall]...)
		b = append(b, 0)
		b = append(b, rec[cMsize]...)
		b = append(b, 0)
		b = append(b, rec[cNP]...)
		b = append(b, 0)
		b = append(b, rec[cDT]...)
		region := hasRegion && rec[cNranks] != ""
		if region {
			b = append(b, 0, 'R')
		}
		for _, l := range labels {
			if rec[l.idx] == "" {
				continue
			}
			b = append(b, 0)
			b = append(b, l.name...)
			b = append(b, '=')
			b = append(b, rec[l.idx]...)
		}
		d.keyBuf = b
		var gi int
		var ok bool
		if bytes.Equal(b, d.lastKey) {
			gi, ok = d.lastGi, true
		} else {
			gi, ok = d.index[string(b)]
		}
		if !ok {
			msize, err := strconv.Atoi(rec[cMsize])
			if err != nil || msize < 0 {
				return fmt.Errorf("%w: %s:%d: msize_bytes %q is not a non-negative integer", errFormat, name, line, rec[cMsize])
			}
			np, err := strconv.Atoi(rec[cNP])
			if err != nil || np < 1 {
				return fmt.Errorf("%w: %s:%d: np %q is not a positive integer", errFormat, name, line, rec[cNP])
			}
			var parts []string
			for _, l := range labels {
				if rec[l.idx] != "" {
					// A value may hold '=' (clocksync specs do): keys split at the first.
					if strings.Contains(rec[l.idx], ",") {
						return fmt.Errorf("%w: %s:%d: label %s=%q contains ','", errFormat, name, line, l.name, rec[l.idx])
					}
					parts = append(parts, l.name+"="+rec[l.idx])
				}
			}
			key := GroupKey{
				Call: strings.Clone(rec[cCall]), MsizeBytes: msize, Np: np,
				Datatype: strings.Clone(rec[cDT]), Labels: strings.Join(parts, ","), Region: region,
			}
			// Different spellings of one key ("08" and "8") share a group.
			if gi, ok = d.byKey[key]; !ok {
				gi = len(d.Groups)
				d.Groups = append(d.Groups, &Group{Key: key})
				d.byKey[key] = gi
			}
			d.index[string(b)] = gi
		}
		d.lastKey = append(d.lastKey[:0], b...)
		d.lastGi = gi
		g := d.Groups[gi]
		// The mpirun is registered at its first row, valid or not, so that
		// an mpirun whose every observation was invalid still has its
		// sidecar read (report, compare).
		mi := d.lastMi
		if mi < 0 || mp != d.Mpiruns[mi].Mpirun || rec[cRun] != d.Mpiruns[mi].RunID {
			id := MpirunID{rec[cRun], mp}
			var ok bool
			if mi, ok = d.mpIndex[id]; !ok {
				id.RunID = strings.Clone(id.RunID)
				mi = int32(len(d.Mpiruns))
				d.Mpiruns = append(d.Mpiruns, id)
				d.mpIndex[id] = mi
			}
			d.lastMi = mi
		}
		if ec != 0 {
			g.Invalid++
			if ec&rawdata.ErrorCodeWrongResult != 0 {
				g.WrongResults++
			}
			continue
		}
		if math.IsNaN(rt) || math.IsInf(rt, 0) || rt < 0 {
			g.Bad++
			continue
		}
		g.Runtimes = append(g.Runtimes, rt)
		g.Mpirun = append(g.Mpirun, mi)
		for _, c := range covs {
			if v := rec[c.idx]; v != "" {
				g.noteCovariate(c.name, mi, v)
			}
		}
	}
}

// covariateMixed is the value Group.Covariates holds for a mpirun whose
// rows had more than one value of the covariate.
const covariateMixed = "*"

// noteCovariate records value v of covariate name for mpirun mi in g.
func (g *Group) noteCovariate(name string, mi int32, v string) {
	if g.Covariates == nil {
		g.Covariates = map[string]map[int32]string{}
	}
	m := g.Covariates[name]
	if m == nil {
		m = map[int32]string{}
		g.Covariates[name] = m
	}
	switch old, ok := m[mi]; {
	case !ok:
		m[mi] = strings.Clone(v)
	case old != v:
		m[mi] = covariateMixed
	}
}

func (d *Dataset) readPerRank(cr *lineReader, name string, hdr []string, col map[string]int) error {
	if m := missing(col, perRankColumns); len(m) > 0 {
		return fmt.Errorf("%w: %s: per-rank file missing column(s) %s", errFormat, name, strings.Join(m, ", "))
	}
	cCall, cMsize, cNP, cRank, cLS, cLE, cErr := col["call"], col["msize_bytes"], col["np"], col["rank"], col["local_start_s"], col["local_end_s"], col["errorcode"]
	cRun, cMp, cExp, cRep := col["run_id"], col["mpirun"], col["exp"], col["rep"]
	// Columns beyond perRankColumns are labels (region runs write them),
	// part of the per-rank group's key as in raw files, but the factor
	// columns whose row does not group (ungroupedFactor).
	var labels []int
	region := false // a region run's per-rank file has the region label
	for i, h := range hdr {
		if !slices.Contains(perRankColumns, h) && !d.ungroupedFactor(h) {
			labels = append(labels, i)
			region = region || h == rawdata.RegionLabel
		}
	}
	slices.SortFunc(labels, func(a, b int) int { return strings.Compare(hdr[a], hdr[b]) })
	for {
		rec, line, err := d.nextRecord(cr, name, hdr)
		if rec == nil || err != nil {
			return err
		}
		msize, err1 := strconv.Atoi(rec[cMsize])
		np, err2 := strconv.Atoi(rec[cNP])
		rank, err3 := strconv.Atoi(rec[cRank])
		ec, err4 := strconv.Atoi(rec[cErr])
		ls, err5 := ParseDecimal(rec[cLS])
		le, err6 := ParseDecimal(rec[cLE])
		if e := errors.Join(err1, err2, err3, err4); e != nil || msize < 0 || np < 1 || rank < 0 || rank >= np {
			return fmt.Errorf("%w: %s:%d: bad msize_bytes/np/rank/errorcode", errFormat, name, line)
		}
		mp, err := strconv.Atoi(rec[cMp])
		if err != nil {
			return fmt.Errorf("%w: %s:%d: mpirun %q is not an integer", errFormat, name, line, rec[cMp])
		}
		if err := d.noteKey(rec, cRun, mp, cExp, cRep, rank, name, line); err != nil {
			return err
		}
		if ec != 0 {
			continue
		}
		if e := errors.Join(err5, err6); e != nil {
			return fmt.Errorf("%w: %s:%d: local_start_s/local_end_s: %v", errFormat, name, line, e)
		}
		rt := le - ls
		if math.IsNaN(rt) || math.IsInf(rt, 0) || rt < 0 {
			continue
		}
		kb := d.keyBuf[:0]
		kb = append(kb, rec[cCall]...)
		kb = append(kb, 0)
		kb = strconv.AppendInt(kb, int64(msize), 10)
		kb = append(kb, 0)
		kb = strconv.AppendInt(kb, int64(np), 10)
		for _, i := range labels {
			if rec[i] != "" {
				kb = append(kb, 0)
				kb = append(kb, hdr[i]...)
				kb = append(kb, '=')
				kb = append(kb, rec[i]...)
			}
		}
		d.keyBuf = kb
		gi, ok := d.prIndex[string(kb)]
		if !ok {
			var parts []string
			for _, i := range labels {
				if rec[i] != "" {
					parts = append(parts, hdr[i]+"="+rec[i])
				}
			}
			gi = len(d.PerRank)
			d.PerRank = append(d.PerRank, &perRankGroup{Key: GroupKey{Call: strings.Clone(rec[cCall]), MsizeBytes: msize, Np: np, Labels: strings.Join(parts, ","), Region: region}, ByRank: map[int][]float64{}})
			d.prIndex[string(kb)] = gi
		}
		g := d.PerRank[gi]
		g.ByRank[rank] = append(g.ByRank[rank], rt)
	}
}

// ParseDecimal parses a number as the engine, R, Python and spreadsheets
// write it: an optional sign, decimal digits with an optional point and an
// optional exponent (1e-06, .5, 3.), or NaN, Inf or Infinity in any case.
// Go's own extensions that strconv.ParseFloat also accepts — hexadecimal
// floats (0x1p-20) and digit separators (1_0) — are refused: no tool writes
// them into a CSV file, so such a field is corrupt data.
// Values beyond ±MaxFloat64 are errors, not infinities.
func ParseDecimal(s string) (float64, error) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E', c == '+', c == '-':
		default:
			w := strings.TrimLeft(s, "+-")
			if len(s)-len(w) <= 1 && (strings.EqualFold(w, "nan") || strings.EqualFold(w, "inf") || strings.EqualFold(w, "infinity")) {
				return strconv.ParseFloat(s, 64)
			}
			return 0, fmt.Errorf("%q is not a decimal number", s)
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%q is out of the range of a float64", s)
	case err != nil:
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return v, nil
}

// DuplicateError reports an observation read twice: two rows with the same
// run_id, mpirun, exp and rep (and rank, in per-rank files). Counting both
// would double n and shift every p-value (the same file given twice, or a
// resumed campaign's aside copies picked up by a glob).
type DuplicateError struct {
	RunID          string
	Mpirun         int
	Exp, Rep, Rank int // Rank is −1 for observation files
	File           string
	Line           int // where the second copy is
	FirstFile      string
	FirstLine      int // where the key was first read
}

func (e *DuplicateError) Error() string {
	rank := ""
	if e.Rank >= 0 {
		rank = fmt.Sprintf(" rank=%d", e.Rank)
	}
	same := ""
	if e.File == e.FirstFile {
		same = " (the same file)"
	}
	return fmt.Sprintf("%s: %s:%d: observation run_id=%s mpirun=%d exp=%d rep=%d%s was already read at %s:%d%s: data given twice (a file listed twice, an .aside or .partial copy, or two campaigns with one --run-id?)",
		errFormat, e.File, e.Line, e.RunID, e.Mpirun, e.Exp, e.Rep, rank, e.FirstFile, e.FirstLine, same)
}

// Is makes errors.Is(err, errFormat) true for a *DuplicateError.
func (e *DuplicateError) Is(target error) bool { return target == errFormat }

// obsKey identifies an experiment of one mpirun in one kind of file (rank
// −1: observation files; per-rank files: the rank).
type obsKey struct {
	run       string
	mpirun    int
	exp, rank int
}

// repSet holds the reps read for one obsKey: a bitset while they are dense
// (as the engine writes them: 0, 1, 2, …), a map otherwise, and the runs
// of consecutive reps on consecutive lines, to say where a rep was read.
type repSet struct {
	run    string // the obsKey's run, owned
	bits   []uint64
	sparse map[int]struct{}
	n      int
	segs   []repSeg
}

// repSeg says that reps rep0 … rep0+n−1 were read on lines line0 …
// line0+n−1 of file Files[file].
type repSeg struct {
	file, line0, rep0, n int
}

func (s *repSet) has(rep int) bool {
	if w := rep / 64; w < len(s.bits) {
		return s.bits[w]&(1<<(rep%64)) != 0
	}
	_, ok := s.sparse[rep]
	return ok
}

func (s *repSet) add(rep, file, line int) {
	w := rep / 64
	switch {
	case w < len(s.bits):
		s.bits[w] |= 1 << (rep % 64)
	case rep < 4096+8*s.n: // dense enough for a bitset
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
		s.bits[w] |= 1 << (rep % 64)
	default:
		if s.sparse == nil {
			s.sparse = map[int]struct{}{}
		}
		s.sparse[rep] = struct{}{}
	}
	s.n++
	if k := len(s.segs) - 1; k >= 0 {
		if g := &s.segs[k]; g.file == file && line == g.line0+g.n && rep == g.rep0+g.n {
			g.n++
			return
		}
	}
	s.segs = append(s.segs, repSeg{file, line, rep, 1})
}

// where returns the file index and line where rep was read first.
func (s *repSet) where(rep int) (file, line int) {
	for _, g := range s.segs {
		if rep >= g.rep0 && rep < g.rep0+g.n {
			return g.file, g.line0 + rep - g.rep0
		}
	}
	return -1, 0
}

// noteKey records the key of row rec (columns cRun, cExp, cRep; mpirun mp,
// rank −1 for observation rows) read at name:line, and fails if it was read
// before, unless d.KeepDuplicates.
func (d *Dataset) noteKey(rec []string, cRun, mp, cExp, cRep, rank int, name string, line int) error {
	exp, err := strconv.Atoi(rec[cExp])
	if err != nil || exp < 0 {
		return fmt.Errorf("%w: %s:%d: exp %q is not a non-negative integer", errFormat, name, line, rec[cExp])
	}
	rep, err := strconv.Atoi(rec[cRep])
	if err != nil || rep < 0 {
		return fmt.Errorf("%w: %s:%d: rep %q is not a non-negative integer", errFormat, name, line, rec[cRep])
	}
	run := rec[cRun]
	s := d.lastSeen
	if s == nil || d.lastObs.mpirun != mp || d.lastObs.exp != exp || d.lastObs.rank != rank || d.lastObs.run != run {
		k := obsKey{run, mp, exp, rank}
		if s = d.seen[k]; s == nil {
			if d.seen == nil {
				d.seen = map[obsKey]*repSet{}
			}
			k.run = strings.Clone(run) // rec aliases the reader's buffer
			s = &repSet{run: k.run}
			d.seen[k] = s
		}
		k.run = s.run
		d.lastSeen, d.lastObs = s, k
	}
	file := len(d.Files) - 1
	if !s.has(rep) {
		s.add(rep, file, line)
		return nil
	}
	if d.KeepDuplicates {
		d.Duplicates++
		return nil
	}
	f, l := s.where(rep)
	first := "?"
	if f >= 0 {
		first = d.Files[f]
	}
	return &DuplicateError{RunID: strings.Clone(run), Mpirun: mp, Exp: exp, Rep: rep, Rank: rank,
		File: name, Line: line, FirstFile: first, FirstLine: l}
}
