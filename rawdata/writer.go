package rawdata

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/factor"
)

// Options say where a Writer writes and which experiments' rows it takes.
type Options struct {
	Dir    string // created if missing
	RunID  string // see CheckRunID
	Mpirun int    // ≥ 0
	// PerRank adds the per-rank file (RankRow).
	PerRank bool
	// Labels are added to every row (run-wide, e.g. --label).
	Labels map[string]string
	// Experiments declares every experiment whose rows will be written.
	Experiments []Experiment
	// PerMpirun are the levels of the factors of Scope PerMpirun that the
	// mpirun was launched with (factor.MpirunLevels): each is written in
	// its optional column of every row.
	PerMpirun map[factor.ID]string
}

// Writer writes the files of one mpirun (see the package doc). It
// implements engine.Sink. Its methods are not safe for concurrent use.
type Writer struct {
	names     Names
	f, rf     *os.File
	w, rw     *bufio.Writer
	prefix    []byte         // run_id,mpirun,
	expSuffix map[int][]byte // per experiment: ,factor values…,label values…\n
	buf       []byte
	rows      int
	done      bool
	overlap   bool         // nbc: OverlapColumns end each row
	nbcRows   map[int]bool // nbc: experiments whose rows fill them
	region    bool         // RegionColumns end each row, label columns each per-rank row
	regRows   map[int]bool // experiments whose rows fill RegionColumns
	rankSuf   map[int][]byte

	runID  string
	mpirun int
	np     int // the rows' np: 0 before the first row, −1 when rows differ
	// The repetitions written, per experiment (reps) and per experiment
	// and rank (rankReps), to refuse a repeated one as the reader does.
	reps     map[int]*repSet
	rankReps map[[2]int]*repSet
	lastExp  int
	lastReps *repSet
}

// Check validates o and returns the file names, without creating anything:
// the run id, the labels, the experiments (numbers ≥ 0, declared once,
// factor levels and nbc modes an unquoted CSV cell can hold), and that no
// final or .partial file of these names exists (wrapping ErrExists).
func Check(o *Options) (Names, error) {
	if err := CheckRunID(o.RunID); err != nil {
		return Names{}, err
	}
	if o.Mpirun < 0 {
		return Names{}, fmt.Errorf("rawdata: mpirun %d is negative", o.Mpirun)
	}
	for k, v := range o.Labels {
		if err := CheckLabel(k, v); err != nil {
			return Names{}, err
		}
	}
	for id, v := range o.PerMpirun {
		if id < 0 || id >= factor.NumIDs || id.Row().Scope != factor.PerMpirun {
			return Names{}, fmt.Errorf("rawdata: PerMpirun: %s is not a per-mpirun factor", id)
		}
		if err := checkCell(v); err != nil {
			return Names{}, fmt.Errorf("rawdata: %s %q: %w", id, v, err)
		}
	}
	seen := map[int]bool{}
	for _, e := range o.Experiments {
		if e.Exp < 0 {
			return Names{}, fmt.Errorf("rawdata: experiment %d: exp is negative", e.Exp)
		}
		if seen[e.Exp] {
			return Names{}, fmt.Errorf("rawdata: experiment %d declared twice", e.Exp)
		}
		seen[e.Exp] = true
		if err := checkFactors(e.Factors); err != nil {
			return Names{}, fmt.Errorf("rawdata: experiment %d: %w", e.Exp, err)
		}
		if err := checkCell(e.NBCMode); err != nil { // nbc
			return Names{}, fmt.Errorf("rawdata: experiment %d: nbc_mode %q: %w", e.Exp, e.NBCMode, err)
		}
		for k, v := range e.Labels {
			if err := CheckLabel(k, v); err != nil {
				return Names{}, fmt.Errorf("experiment %d: %w", e.Exp, err)
			}
		}
	}
	n := NamesFor(o.Dir, o.RunID, o.Mpirun, o.PerRank)
	for _, f := range n.all() {
		if _, err := os.Lstat(f); err == nil {
			return n, fmt.Errorf("%w: %s already exists; refusing to overwrite results (choose another run id, mpirun or directory)", ErrExists, f)
		}
		if _, err := os.Lstat(f + PartialSuffix); err == nil {
			return n, fmt.Errorf("%w: %s%s exists, left by an earlier run that did not complete; move it away (it is kept for inspection, never overwritten)", ErrExists, f, PartialSuffix)
		}
	}
	return n, nil
}

// Create checks o (Check), creates the directory and the .partial files
// (exclusively) and writes the headers.
func Create(o Options) (*Writer, error) {
	n, err := Check(&o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("rawdata: %w", err)
	}
	keys := labelKeys(&o)
	s := &Writer{names: n, expSuffix: map[int][]byte{}, nbcRows: map[int]bool{}, runID: o.RunID, mpirun: o.Mpirun,
		reps: map[int]*repSet{}, rankReps: map[[2]int]*repSet{}, lastExp: -1}
	s.regRows, s.rankSuf = map[int]bool{}, map[int][]byte{}
	for _, e := range o.Experiments { // nbc
		if e.NBCMode != "" {
			s.overlap = true
			s.nbcRows[e.Exp] = true
		}
		if e.Region {
			s.region = true
			s.regRows[e.Exp] = true
		}
	}
	covariates := slices.ContainsFunc(o.Experiments, func(e Experiment) bool { return e.Covariates.Any() })
	var optional []factor.ID // the optional factor columns some experiment sets
	for _, id := range factor.OptionalColumns() {
		if o.PerMpirun[id] != "" || slices.ContainsFunc(o.Experiments, func(e Experiment) bool { return setsFactor(e.Factors, id) }) {
			optional = append(optional, id)
		}
	}
	for _, e := range o.Experiments {
		b := []byte("," + strings.Join(FactorCells(e.Factors), ","))
		for _, id := range optional {
			if v, ok := o.PerMpirun[id]; ok {
				b = append(append(b, ','), v...)
				continue
			}
			b = append(append(b, ','), factorCell(e.Factors, id)...)
		}
		if covariates {
			b = append(b, ","+strings.Join(e.Covariates.Values(), ",")...)
		}
		lab := []byte{}
		for _, k := range keys {
			lab = append(lab, ',')
			if v := e.Labels[k]; v != "" {
				lab = append(lab, v...)
			} else {
				lab = append(lab, o.Labels[k]...)
			}
		}
		b = append(b, lab...)
		if s.region {
			s.rankSuf[e.Exp] = append(lab, '\n')
		}
		if s.overlap { // nbc: the row's values follow (Row)
			s.expSuffix[e.Exp] = append(append(b, ','), e.NBCMode...)
			continue
		}
		if s.region { // the region values follow (Row)
			s.expSuffix[e.Exp] = b
			continue
		}
		s.expSuffix[e.Exp] = append(b, '\n')
	}
	if s.f, err = createExclusive(n.CSV + PartialSuffix); err != nil {
		return nil, err
	}
	s.w = bufio.NewWriterSize(s.f, 1<<16)
	hdr := slices.Concat(Columns, FactorColumns)
	for _, id := range optional {
		hdr = append(hdr, id.String())
	}
	if covariates {
		hdr = append(hdr, CovariateColumns...)
	}
	hdr = append(hdr, keys...)
	if s.overlap { // nbc
		hdr = append(hdr, OverlapColumns...)
	}
	if s.region {
		hdr = append(hdr, RegionColumns...)
	}
	s.w.WriteString(strings.Join(hdr, ",") + "\n")
	if n.Ranks != "" {
		if s.rf, err = createExclusive(n.Ranks + PartialSuffix); err != nil {
			s.f.Close()
			return nil, err
		}
		s.rw = bufio.NewWriterSize(s.rf, 1<<16)
		rh := RankColumns
		if s.region {
			rh = slices.Concat(RankColumns, keys)
		}
		s.rw.WriteString(strings.Join(rh, ",") + "\n")
	}
	s.prefix = []byte(o.RunID + "," + strconv.Itoa(o.Mpirun) + ",")
	return s, nil
}

func createExclusive(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: %s (refusing to overwrite it)", ErrExists, path)
	}
	if err != nil {
		return nil, fmt.Errorf("rawdata: %w", err)
	}
	return f, nil
}

// labelKeys returns the sorted union of the run's and the experiments'
// label keys.
func labelKeys(o *Options) []string {
	all := map[string]bool{}
	for k := range o.Labels {
		all[k] = true
	}
	for _, e := range o.Experiments {
		for k, v := range e.Labels {
			if v != "" {
				all[k] = true
			}
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Names returns the final paths of the files.
func (s *Writer) Names() Names { return s.names }

// Rows returns the number of raw rows written.
func (s *Writer) Rows() int { return s.rows }

func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

// Row writes one raw row. It refuses, naming the field, a row that the
// reader (package analysis) would refuse: an experiment not declared to
// the writer, a (exp, rep) already written, a call name CheckCall refuses,
// a datatype not among Datatypes, a negative msize_bytes, count, rep or
// errorcode, or np < 1. A refused row is not written; the writer stays
// usable.
func (s *Writer) Row(r *Row) error {
	if r == nil {
		return errors.New("rawdata: Row(nil)")
	}
	if s.done {
		return errors.New("rawdata: Row after Close or Abort")
	}
	suf, ok := s.expSuffix[r.Exp]
	if !ok {
		return fmt.Errorf("rawdata: row exp=%d rep=%d: experiment %d was not declared to the writer (Options.Experiments)", r.Exp, r.Rep, r.Exp)
	}
	if err := checkRow(r); err != nil {
		return fmt.Errorf("rawdata: row exp=%d rep=%d: %w", r.Exp, r.Rep, err)
	}
	reps := s.lastReps
	if r.Exp != s.lastExp {
		if reps = s.reps[r.Exp]; reps == nil {
			reps = &repSet{}
			s.reps[r.Exp] = reps
		}
		s.lastExp, s.lastReps = r.Exp, reps
	}
	if !reps.add(r.Rep) {
		return fmt.Errorf("rawdata: row exp=%d rep=%d: rep %d of experiment %d was already written (the reader refuses an observation given twice)", r.Exp, r.Rep, r.Rep, r.Exp)
	}
	switch {
	case s.np == 0:
		s.np = r.Np
	case s.np != r.Np:
		s.np = -1
	}
	b := append(s.buf[:0], s.prefix...)
	b = strconv.AppendInt(b, int64(r.Exp), 10)
	b = append(b, ',')
	b = append(b, r.Call...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.MsizeBytes), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Count), 10)
	b = append(b, ',')
	b = append(b, r.Datatype...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Np), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Rep), 10)
	b = append(b, ',')
	b = appendFloat(b, r.RuntimeS)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.ErrorCode), 10)
	b = append(b, suf...)
	if s.overlap { // nbc
		if s.nbcRows[r.Exp] {
			for _, v := range [...]float64{r.PureS, r.ComputeS, r.TotalS, r.OverlapFrac} {
				b = append(b, ',')
				b = appendFloat(b, v)
			}
		} else {
			b = append(b, ",,,,"...)
		}
		if !s.region {
			b = append(b, '\n')
		}
	}
	if s.region {
		if s.regRows[r.Exp] {
			v := &r.Region
			b = append(b, ',')
			b = strconv.AppendInt(b, v.Iter, 10)
			for _, x := range [...]float64{v.StartS, v.GlobalRuntimeS, v.EntrySpreadS} {
				b = append(b, ',')
				b = appendFloat(b, x)
			}
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(v.Nranks), 10)
		} else {
			b = append(b, ",,,,,"...)
		}
		b = append(b, '\n')
	}
	s.buf = b
	s.rows++
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	return nil
}

// RankRow writes one per-rank row (Options.PerRank must be set). Like Row
// it refuses, naming the field, what the reader would refuse: an
// undeclared experiment, a (exp, rep, rank) already written, a bad call
// name, a rank outside [0, np), negative numbers.
func (s *Writer) RankRow(r *RankRow) error {
	if r == nil {
		return errors.New("rawdata: RankRow(nil)")
	}
	if s.done {
		return errors.New("rawdata: RankRow after Close or Abort")
	}
	if s.rw == nil {
		return errors.New("rawdata: RankRow without Options.PerRank")
	}
	if _, ok := s.expSuffix[r.Exp]; !ok {
		return fmt.Errorf("rawdata: per-rank row exp=%d rep=%d rank=%d: experiment %d was not declared to the writer (Options.Experiments)", r.Exp, r.Rep, r.Rank, r.Exp)
	}
	if err := checkRankRow(r); err != nil {
		return fmt.Errorf("rawdata: per-rank row exp=%d rep=%d rank=%d: %w", r.Exp, r.Rep, r.Rank, err)
	}
	k := [2]int{r.Exp, r.Rank}
	reps := s.rankReps[k]
	if reps == nil {
		reps = &repSet{}
		s.rankReps[k] = reps
	}
	if !reps.add(r.Rep) {
		return fmt.Errorf("rawdata: per-rank row exp=%d rep=%d rank=%d: already written (the reader refuses an observation given twice)", r.Exp, r.Rep, r.Rank)
	}
	b := append(s.buf[:0], s.prefix...)
	b = strconv.AppendInt(b, int64(r.Exp), 10)
	b = append(b, ',')
	b = append(b, r.Call...)
	for _, v := range [...]int{r.MsizeBytes, r.Np, r.Rep, r.Rank} {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	for _, v := range [...]float64{r.LocalStartS, r.LocalEndS, r.GlobalStartS, r.GlobalEndS} {
		b = append(b, ',')
		b = appendFloat(b, v)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.ErrorCode), 10)
	if s.region {
		b = append(b, s.rankSuf[r.Exp]...)
	} else {
		b = append(b, '\n')
	}
	s.buf = b
	if _, err := s.rw.Write(b); err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	return nil
}

// EndExperiment flushes the rows written so far to the .partial files.
func (s *Writer) EndExperiment(*Summary) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	if s.rw != nil {
		if err := s.rw.Flush(); err != nil {
			return fmt.Errorf("rawdata: %w", err)
		}
	}
	return nil
}

func syncClose(w *bufio.Writer, f *os.File) error {
	err := w.Flush()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeJSON(path string, meta *Metadata) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	err = enc.Encode(meta)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close completes the mpirun: it fsyncs the data files, writes meta as the
// sidecar, renames the .partial files, the sidecar last, and fsyncs the
// directory. It completes meta first: Files; the run id, mpirun and
// error code table when empty (a run id or mpirun other than the
// writer's is refused); np when empty and every row had the same; the
// thread levels in their canonical spellings (either spelling of a level
// is accepted, anything else refused). A nil meta or a refused one is an
// error that leaves the writer open: call Close again, or Abort.
func (s *Writer) Close(meta *Metadata) error {
	if s.done {
		return errors.New("rawdata: writer already closed")
	}
	if meta == nil {
		return errors.New("rawdata: Close(nil): the sidecar needs the metadata (pipeline.CollectMetadata gathers what the CLI records); Abort gives up on the mpirun")
	}
	if err := s.complete(meta); err != nil {
		return err
	}
	s.done = true
	meta.FormatVersion = FormatVersion
	meta.Files = map[string]string{"raw": filepath.Base(s.names.CSV), "metadata": filepath.Base(s.names.JSON)}
	if s.rf != nil {
		meta.Files["per_rank"] = filepath.Base(s.names.Ranks)
	}
	err := syncClose(s.w, s.f)
	if s.rf != nil {
		err = errors.Join(err, syncClose(s.rw, s.rf))
	}
	if err == nil {
		err = writeJSON(s.names.JSON+PartialSuffix, meta)
	}
	if err != nil {
		return fmt.Errorf("rawdata: %w (partial files kept)", err)
	}
	for _, f := range s.names.all() {
		if err := os.Rename(f+PartialSuffix, f); err != nil {
			return fmt.Errorf("rawdata: %w", err)
		}
	}
	d, err := os.Open(filepath.Dir(s.names.JSON))
	if err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("rawdata: %w", err)
	}
	return nil
}

// Abort ends a failed mpirun: the .partial files stay for inspection, the
// sidecar's holding meta (nil: an empty one with the run id and mpirun)
// with Error set to cause. It returns the errors of flushing and writing
// them, if any.
func (s *Writer) Abort(meta *Metadata, cause error) error {
	if s.done {
		return nil
	}
	s.done = true
	if meta == nil {
		meta = &Metadata{RunID: s.runID, Mpirun: s.mpirun}
	}
	meta.FormatVersion = FormatVersion
	if cause != nil {
		meta.Error = cause.Error()
	}
	err := syncClose(s.w, s.f)
	if s.rf != nil {
		err = errors.Join(err, syncClose(s.rw, s.rf))
	}
	return errors.Join(err, writeJSON(s.names.JSON+PartialSuffix, meta))
}
