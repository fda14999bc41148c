package region

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// DefaultSpillEvery is the spill interval when Options.SpillEvery is 0:
// a rank writes its new records to its spill file once it has this many.
const DefaultSpillEvery = 1024

// spillVersion is the version of the spill file format (first line).
const spillVersion = 1

// spillDir returns the directory of the spill files of one mpirun:
// DIR/RUNID-mpirunNNN.spill, one file rank<R>.txt per rank.
func spillDir(dir, runID string, mpirun int) string {
	return rawdata.OutputBase(dir, runID, mpirun) + ".spill"
}

// spiller is a rank's spill file.
type spiller struct {
	f        *os.File
	buf      []byte // reused: the lines of one spill
	every    int
	spilled  int // records written
	names    int // names and label sets written
	labels   int
	spillS   float64 // time spent spilling, seconds of the rank's clock
	spills   int
	writeErr error
}

// startSpill creates this rank's spill file and writes its header (at
// StartWith, after New: the start's synchronization is known).
func (r *Recorder) startSpill(out Output) error {
	dir := spillDir(out.Dir, out.RunID, out.Mpirun)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("rank%d.txt", r.c.Rank())), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("region: %w", err)
	}
	every := r.opt.SpillEvery
	if every <= 0 {
		every = DefaultSpillEvery
	}
	s := &spiller{f: f, every: every}
	args, _ := json.Marshal(os.Args)
	b := fmt.Appendf(nil, "reprobench-spill\t%d\nrank\t%d\t%d\nclock\t%s\t%s\nstart_utc\t%s\nargs\t%s\nspill_every\t%d\n",
		spillVersion, r.c.Rank(), r.c.Size(), r.clk.Name(), ftoa(r.clk.Freq().Hz()), r.startUTC.Format(time.RFC3339Nano), args, every)
	if sp := r.startSync; sp != nil {
		b = fmt.Appendf(b, "sync\t%s\t%s\t%s\t%s\t%s\t%s\n", ftoa(sp.localS), ftoa(sp.res.Model.Slope), ftoa(sp.res.Model.Intercept),
			ftoa(sp.bound.At(0)), ftoa(sp.bound.Slope), r.opt.Sync.Name)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("region: %w", err)
	}
	r.spill = s
	return nil
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// maybeSpill spills when the rank is outside every region and has at
// least the spill interval of new records.
func (r *Recorder) maybeSpill() {
	if s := r.spill; s != nil && r.depth == 0 && r.n-s.spilled >= s.every {
		r.spillNow()
	}
}

// spillNow appends the records not yet written (all closed: the rank is
// outside every region), the names and label sets they introduce, and the
// misuse counts, in one write. Its own time is accounted (RankLog.SpillS).
func (r *Recorder) spillNow() {
	s := r.spill
	t0 := r.clk.Now()
	b := s.buf[:0]
	for ; s.names < len(r.names); s.names++ {
		b = fmt.Appendf(b, "name\t%d\t%s\n", s.names, r.names[s.names])
	}
	for ; s.labels < len(r.labelSets); s.labels++ {
		b = fmt.Appendf(b, "labels\t%d\t%s\n", s.labels, r.labelSets[s.labels])
	}
	for _, p := range r.recs[s.spilled:r.n] {
		b = append(b, "r\t"...)
		b = strconv.AppendInt(b, int64(p.name), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(p.labels), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, p.iter, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(p.depth), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(p.start), 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(p.end), 10)
		b = append(b, '\n')
	}
	b = fmt.Appendf(b, "account\t%d\t%d", r.misuse, r.dropped)
	for _, n := range r.kinds {
		b = append(b, '\t')
		b = strconv.AppendInt(b, n, 10)
	}
	b = append(b, '\n')
	b = fmt.Appendf(b, "spilled\t%d\t%s\n", s.spills, ftoa(s.spillS))
	s.spilled = r.n
	if s.writeErr == nil {
		_, s.writeErr = s.f.Write(b)
	}
	s.buf = b
	s.spills++
	s.spillS += r.clk.Freq().Seconds(r.clk.Now() - t0)
}

// spillClose writes the rest and the end line, and closes the file (at
// Close). The records of regions still open are not written.
func (r *Recorder) spillClose() error {
	s := r.spill
	if s.f == nil { // replayed by Recover
		return nil
	}
	if s.spilled < r.n && r.depth == 0 {
		r.spillNow()
	}
	if s.writeErr == nil {
		_, s.writeErr = s.f.WriteString("end\n")
	}
	return errorsJoin(s.writeErr, s.f.Close())
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// replayClock is the clock of a spill file: its name and frequency, and
// Now fixed at the rank's last recorded tick.
type replayClock struct {
	name string
	freq timing.Freq
	last timing.Ticks
}

func (c *replayClock) Now() timing.Ticks     { return c.last }
func (c *replayClock) Freq() timing.Freq     { return c.freq }
func (c *replayClock) Name() string          { return c.name }
func (c *replayClock) Source() timing.Source { return timing.Source{} }

// readSpill reads one rank's spill file into a recorder that holds its
// records as they were last spilled. A line cut short (no line break at
// the end of the file) is ignored; np is the rank count the file states.
func readSpill(path string) (r *Recorder, rank, np int, args []string, ended bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, nil, false, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	clk := &replayClock{name: "unknown", freq: timing.NewFreq(1e9)}
	r = &Recorder{clk: clk, nameIdx: map[string]int32{}, labelIdx: map[string]int32{}, iter: -1, loadErr: io.EOF}
	var startUTC time.Time
	bad := func(line string, e error) error { return fmt.Errorf("region: %s: line %q: %v", path, line, e) }
	for lineNo := 0; ; lineNo++ {
		line, rerr := br.ReadString('\n')
		if rerr != nil { // EOF: a last line without its line break is torn
			break
		}
		fs := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if lineNo == 0 {
			if len(fs) != 2 || fs[0] != "reprobench-spill" {
				return nil, 0, 0, nil, false, bad(line, fmt.Errorf("not a spill file"))
			}
			if v, _ := strconv.Atoi(fs[1]); v < 1 || v > spillVersion {
				return nil, 0, 0, nil, false, bad(line, fmt.Errorf("spill version %s; this reader knows up to %d", fs[1], spillVersion))
			}
			continue
		}
		num := func(i int) int64 {
			if i >= len(fs) {
				err = fmt.Errorf("field %d missing", i)
				return 0
			}
			v, e := strconv.ParseInt(fs[i], 10, 64)
			if e != nil {
				err = e
			}
			return v
		}
		flt := func(i int) float64 {
			if i >= len(fs) {
				err = fmt.Errorf("field %d missing", i)
				return 0
			}
			v, e := strconv.ParseFloat(fs[i], 64)
			if e != nil {
				err = e
			}
			return v
		}
		switch fs[0] {
		case "rank":
			rank, np = int(num(1)), int(num(2))
		case "clock":
			clk.name = fs[1]
			if hz := flt(2); hz > 0 && !math.IsInf(hz, 0) {
				clk.freq = timing.NewFreq(hz)
			}
		case "start_utc":
			startUTC, err = time.Parse(time.RFC3339Nano, fs[1])
		case "args":
			err = json.Unmarshal([]byte(fs[1]), &args)
		case "sync":
			b := clocksync.Bound{AtSync: flt(4), Slope: flt(5)}
			b.Unknown = math.IsNaN(b.AtSync)
			r.startSync = &syncPoint{res: &clocksync.Result{Model: clocksync.Model{Slope: flt(2), Intercept: flt(3)}}, bound: b, localS: flt(1)}
			if len(fs) > 6 {
				r.startSync.res.Algorithm = fs[6]
			}
		case "name":
			if int(num(1)) != len(r.names) {
				err = fmt.Errorf("name %s out of order", fs[1])
			}
			r.nameIdx[fs[2]] = int32(len(r.names))
			r.names = append(r.names, fs[2])
		case "labels":
			if int(num(1)) != len(r.labelSets) {
				err = fmt.Errorf("label set %s out of order", fs[1])
			}
			r.labelIdx[fs[2]] = int32(len(r.labelSets))
			r.labelSets = append(r.labelSets, fs[2])
		case "r":
			p := record{name: int32(num(1)), labels: int32(num(2)), iter: num(3), depth: int16(num(4)),
				start: timing.Ticks(num(5)), end: timing.Ticks(num(6)), closed: true, parent: -1}
			if int(p.name) >= len(r.names) || p.name < 0 || int(p.labels) >= len(r.labelSets) || p.labels < 0 {
				err = fmt.Errorf("record of an undefined name or label set")
			}
			r.recs = append(r.recs, p)
			clk.last = max(clk.last, p.end)
		case "account":
			r.misuse, r.dropped = num(1), num(2)
			for k := range r.kinds {
				if 3+k < len(fs) {
					r.kinds[k] = num(3 + k)
				}
			}
		case "spill_every":
			r.spill = &spiller{every: int(num(1))}
		case "spilled":
			if r.spill != nil {
				r.spill.spills, r.spill.spillS = int(num(1)), flt(2)
			}
		case "end":
			ended = true
		}
		if err != nil {
			return nil, 0, 0, nil, false, bad(line, err)
		}
	}
	r.n = len(r.recs)
	r.startUTC = startUTC
	return r, rank, np, args, ended, nil
}

// Recover reads the spill files of a run that did not reach Close (a
// panic, MPI_Abort, a killed job) from spillDir(out.Dir, out.RunID,
// out.Mpirun), and writes them as that mpirun's raw data, marked
// incomplete (Record.Incomplete): each rank's records as last spilled, on
// the rank's own clock (runtime_s), and on the global clock through the
// start's synchronization with its bound at the rank's last record, where
// there was one. A rank without a file counts as having recorded nothing.
// The occurrences are combined as Close combines them, on a simulated
// world of the run's rank count (package mpitest). The spill files are
// left in place. It returns rank 0's Result.
func Recover(out Output) (*Result, error) {
	dir := spillDir(out.Dir, out.RunID, out.Mpirun)
	files, err := filepath.Glob(filepath.Join(dir, "rank*.txt"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("region: no spill files in %s (%v)", dir, err)
	}
	byRank := map[int]*Recorder{}
	np := 0
	var args []string
	var startUTC time.Time
	complete := true
	for _, f := range files {
		r, rank, n, a, ended, err := readSpill(f)
		if err != nil {
			return nil, err
		}
		if rank < 0 || n < 1 || rank >= n {
			return nil, fmt.Errorf("region: %s: rank %d of %d", f, rank, n)
		}
		if np != 0 && n != np {
			return nil, fmt.Errorf("region: %s states %d ranks, another file %d", f, n, np)
		}
		np = n
		byRank[rank] = r
		complete = complete && ended
		if rank == 0 || args == nil {
			args, startUTC = a, r.startUTC
		}
	}
	complete = complete && len(byRank) == np
	w, err := mpitest.New(mpitest.Config{Ranks: np, Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	if err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	if out.Meta == nil {
		out.Meta = &rawdata.Metadata{Args: args, StartUTC: startUTC}
	}
	var res *Result
	var rerr error
	err = w.Run(func(k *mpitest.Rank) error {
		r := byRank[k.ID()]
		if r == nil {
			r = &Recorder{clk: &replayClock{name: "unknown", freq: timing.NewFreq(1e9)}, iter: -1, loadErr: io.EOF}
		}
		r.c = k.Comm()
		r.opt = Options{NoEndSync: true, NoProvenance: true, Notes: io.Discard}
		if r.startSync != nil {
			r.opt.Sync = &clocksync.Algorithm{Name: r.startSync.res.Algorithm}
		}
		r.incomplete = !complete
		o, err := r.Close(out)
		if k.ID() == 0 {
			res, rerr = o, err
			return nil
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	return res, rerr
}
