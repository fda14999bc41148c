package region

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// MarkCompute marks the named regions as computation (the useful work of
// the POP efficiencies), stated in the sidecar (Record.Compute). Call it
// with the same names on every rank; rank 0's are written. Names that
// cannot be region names are counted as BadName misuses and left out.
func (r *Recorder) MarkCompute(names ...string) {
	if r == nil || r.off {
		return
	}
	for _, n := range names {
		if id, ok := r.nameIdx[n]; (ok && id < 0) || (!ok && r.internName(n) < 0) {
			r.noteMisuse(BadName, "MarkCompute("+n+")")
			continue
		}
		if !slices.Contains(r.compute, n) {
			r.compute = append(r.compute, n)
		}
	}
}

// mine is one closed record of the calling rank at Close, seconds.
type mine struct {
	exp, rep       int32
	slot           int
	iter           int64
	ls, le, gs, ge float64
}

// occFields are the per-occurrence values reduced with Max: duration,
// −global start, global start, global end, −iteration.
const occFields = 5

// occChunk is the number of occurrences reduced at once: 5 float64 and
// one int64 each, 192 KiB per call.
const occChunk = 4096

// Close ends the recording (collective): it synchronizes the clocks again
// when they were synchronized at New (unless Options.NoEndSync), maps the
// records to global time, and combines them across the ranks by
// reductions (package doc), so that rank 0's memory grows with the number
// of occurrences and regions, not with the rank count. Rank 0 builds the
// rows and the Record and, with out.Dir set, writes them; with
// out.PerRank it also receives each rank's records, one rank at a time,
// for the per-rank file. It prints on rank 0 the one-line account of
// misuse, drops and unclosed regions (Options.Notes). Regions still open
// are not written. The error of writing is rank 0's; the other ranks
// return the errors of communication only. A nil or disabled recorder
// returns an empty Result.
func (r *Recorder) Close(out Output) (*Result, error) {
	if r == nil || r.off {
		return &Result{}, nil
	}
	t0 := r.clk.Now()
	f := r.clk.Freq()
	lastS := f.Seconds(t0)
	load := make([]int64, cpuload.RankFields) // zeros: no reading
	if r.loadErr == nil {
		if s1, err := cpuload.Read(); err == nil {
			if d, err := cpuload.Delta(r.load0, s1); err == nil {
				load = d.Vector()
			}
		}
	}
	var endSync *syncPoint
	if r.startSync != nil && !r.opt.NoEndSync {
		var err error
		if endSync, err = syncNow(r.c, r.clk, r.opt.Sync); err != nil {
			return nil, fmt.Errorf("region: clock synchronization at Close: %w", err)
		}
	}
	model, bound, how := r.conversion(endSync, lastS)
	synced := "none"
	switch {
	case endSync != nil:
		synced = "start+end"
	case r.startSync != nil:
		synced = "start"
	}
	var spillErr error
	if r.spill != nil {
		spillErr = r.spillClose()
	}
	c, p, rank := r.c, r.c.Size(), r.c.Rank()

	// This rank's keys (region, labels) in first-seen order, and the union
	// over the ranks in the same order on every rank.
	type lk struct{ name, labels int32 }
	localKey := map[lk]int32{}
	var keys [][2]string
	unclosed := 0
	for _, q := range r.recs[:r.n] {
		if !q.closed {
			unclosed++
			continue
		}
		if _, ok := localKey[lk{q.name, q.labels}]; !ok {
			localKey[lk{q.name, q.labels}] = int32(len(keys))
			keys = append(keys, [2]string{r.names[q.name], r.labelSets[q.labels]})
		}
	}
	union, err := unionKeys(c, keys)
	if err != nil {
		return nil, fmt.Errorf("region: merging the region names: %w", err)
	}
	K := len(union)
	gidx := make(map[[2]string]int32, K)
	for i, k := range union {
		gidx[k] = int32(i)
	}
	toGlobal := make([]int32, len(keys))
	for i, k := range keys {
		toGlobal[i] = gidx[k]
	}

	// This rank's closed records, numbered per key (rep), in seconds.
	count := make([]int64, K)
	recs := make([]mine, 0, r.n-unclosed)
	firstS, lastE := math.Inf(1), math.Inf(-1)
	for _, q := range r.recs[:r.n] {
		if !q.closed {
			continue
		}
		e := toGlobal[localKey[lk{q.name, q.labels}]]
		m := mine{exp: e, rep: int32(count[e]), iter: q.iter, ls: f.Seconds(q.start), le: f.Seconds(q.end), gs: math.NaN(), ge: math.NaN()}
		count[e]++
		if r.startSync != nil {
			m.gs, m.ge = model.Global(m.ls), model.Global(m.le)
		}
		firstS, lastE = math.Min(firstS, m.ls), math.Max(lastE, m.le)
		recs = append(recs, m)
	}
	reps := make([]int64, K)
	if err := mpi.Allreduce(c, count, reps, mpi.Max); err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	offset := make([]int, K+1)
	for e := range K {
		offset[e+1] = offset[e] + int(reps[e])
	}
	for i := range recs {
		recs[i].slot = offset[recs[i].exp] + int(recs[i].rep)
	}

	log := RankLog{Rank: rank, Records: len(recs), Dropped: r.dropped, Unclosed: unclosed,
		Misuse: r.misuse, FirstMisuse: r.firstMisuse, PairOverheadNs: r.pairNs, Model: how}
	for k, n := range r.kinds {
		if n > 0 {
			if log.MisuseKinds == nil {
				log.MisuseKinds = map[string]int64{}
			}
			log.MisuseKinds[Misuse(k).String()] = n
		}
	}
	log.OverheadS = float64(log.Records) * r.pairNs * 1e-9
	if s := r.spill; s != nil {
		log.Spills, log.SpillS = s.spills, s.spillS
		if spillErr != nil {
			log.SpillError = spillErr.Error()
		}
	}
	if !math.IsNaN(bound) {
		b := bound
		log.BoundS = &b
	}

	// Per key and run-wide values, by one Reduce with Max and one with Sum.
	tot := make([]float64, K)
	has := make([]float64, K)
	for _, m := range recs {
		tot[m.exp] += m.le - m.ls
		has[m.exp] = 1
	}
	ninf := math.Inf(-1)
	unbounded := r.startSync != nil && math.IsNaN(bound)
	// mx: [tot (K), −tot (K), bound, −first global start, last global end, own span, −lowest unbounded rank, spill time]
	mx := make([]float64, 2*K+6)
	for e := range K {
		mx[e], mx[K+e] = ninf, ninf
		if has[e] > 0 {
			mx[e], mx[K+e] = tot[e], -tot[e]
		}
	}
	sc := mx[2*K:]
	sc[0], sc[1], sc[2], sc[3], sc[4] = ninf, ninf, ninf, 0, -float64(p)
	if !math.IsNaN(bound) {
		sc[0] = bound
	}
	for _, m := range recs {
		if !math.IsNaN(m.gs) {
			sc[1], sc[2] = math.Max(sc[1], -m.gs), math.Max(sc[2], m.ge)
		}
	}
	if len(recs) > 0 {
		sc[3] = lastE - firstS
	}
	if unbounded {
		sc[4] = -float64(rank)
	}
	if r.spill != nil {
		sc[5] = r.spill.spillS
	}
	// sm: [tot (K), has (K), misuses, drops, unclosed, unbounded ranks, kinds…]
	sm := make([]float64, 2*K+4+int(numMisuse))
	copy(sm, tot)
	copy(sm[K:], has)
	ss := sm[2*K:]
	ss[0], ss[1], ss[2] = float64(r.misuse), float64(r.dropped), float64(unclosed)
	if unbounded {
		ss[3] = 1
	}
	for k, n := range r.kinds {
		ss[4+k] = float64(n)
	}
	var mx0, sm0 []float64
	if rank == 0 {
		mx0, sm0 = make([]float64, len(mx)), make([]float64, len(sm))
	}
	if err := mpi.Reduce(c, mx, mx0, mpi.Max, 0); err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	if err := mpi.Reduce(c, sm, sm0, mpi.Sum, 0); err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}

	// The first misuse: the lowest rank that had one sends it to rank 0.
	first := []int64{int64(p)}
	if r.misuse > 0 {
		first[0] = int64(rank)
	}
	lowest := []int64{0}
	if err := mpi.Allreduce(c, first, lowest, mpi.Min); err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	firstMisuse := r.firstMisuse
	if fr := int(lowest[0]); fr > 0 && fr < p {
		if rank == fr {
			if err := sendBytes(c, []byte(r.firstMisuse), 0, mpi.TagRegion); err != nil {
				return nil, fmt.Errorf("region: %w", err)
			}
		} else if rank == 0 {
			b, err := recvBytes(c, fr, mpi.TagRegion)
			if err != nil {
				return nil, fmt.Errorf("region: %w", err)
			}
			firstMisuse = string(b)
		}
	}

	// The CPU load: a vector per rank (cpuload.Combine needs them all).
	var loads []int64
	if rank == 0 {
		loads = make([]int64, p*cpuload.RankFields)
	}
	if err := mpi.Gather(c, load, loads, 0); err != nil {
		return nil, fmt.Errorf("region: gathering the CPU load: %w", err)
	}
	var prov *provenance.Record
	if r.prov != nil {
		var err error
		if prov, err = r.prov.Finish(c, bindingSamples); err != nil {
			return nil, fmt.Errorf("region: provenance: %w", err)
		}
	}

	// Per occurrence, in chunks: Max of the fields, Sum of the ranks.
	R := offset[K]
	var rows []Row
	if rank == 0 {
		rows = make([]Row, 0, R)
		for e := range K {
			for k := range int(reps[e]) {
				rows = append(rows, Row{Region: union[e][0], Labels: union[e][1], Exp: e, Rep: k})
			}
		}
	}
	ov := make([]float64, occFields*min(R, occChunk))
	on := make([]int64, min(R, occChunk))
	var ov0 []float64
	var on0 []int64
	if rank == 0 {
		ov0, on0 = make([]float64, len(ov)), make([]int64, len(on))
	}
	for lo := 0; lo < R; lo += occChunk {
		hi := min(R, lo+occChunk)
		n := hi - lo
		for i := range ov[:occFields*n] {
			ov[i] = ninf
		}
		clear(on[:n])
		for _, m := range recs {
			if m.slot < lo || m.slot >= hi {
				continue
			}
			v := ov[occFields*(m.slot-lo):]
			v[0], v[4] = m.le-m.ls, -float64(m.iter)
			if !math.IsNaN(m.gs) {
				v[1], v[2], v[3] = -m.gs, m.gs, m.ge
			}
			on[m.slot-lo] = 1
		}
		if err := mpi.Reduce(c, ov[:occFields*n], sliceOrNil(ov0, occFields*n), mpi.Max, 0); err != nil {
			return nil, fmt.Errorf("region: %w", err)
		}
		if err := mpi.Reduce(c, on[:n], sliceOrNil(on0, n), mpi.Sum, 0); err != nil {
			return nil, fmt.Errorf("region: %w", err)
		}
		if rank != 0 {
			continue
		}
		for i := range n {
			row, v := &rows[lo+i], ov0[occFields*i:]
			row.Nranks, row.RuntimeS, row.Iter = int(on0[i]), v[0], int64(-v[4])
			row.StartS, row.EntrySpreadS, row.GlobalRuntimeS = math.NaN(), math.NaN(), math.NaN()
			if !math.IsInf(v[2], -1) {
				row.StartS, row.EntrySpreadS, row.GlobalRuntimeS = -v[1], v[2]+v[1], v[3]+v[1]
			}
			if row.Nranks < p {
				row.ErrorCode = 16
			}
		}
	}

	res := &Result{Provenance: prov, Record: Record{Version: recordVersion, Clock: r.clk.Name(), Capacity: len(r.recs), Overflow: DropNewest.String(),
		RuntimeS: runtimeSDef, GlobalRuntimeS: globalRuntimeSDef, Sync: synced, Ranks: p, PerRank: []RankLog{log}}}
	if out.PerRank {
		if err := r.perRank(out, recs, rows, &res.Record, log); err != nil {
			return nil, err
		}
	}
	if rank != 0 {
		return res, nil
	}
	res.Rows = rows
	rec := &res.Record
	mxs, sms := mx0[2*K:], sm0[2*K:]
	rec.Compute = r.compute
	rec.Incomplete = r.incomplete
	if r.spill != nil {
		rec.SpillEvery, rec.SpillMaxS = r.spill.every, mxs[5]
	}
	rec.Totals = make([]rawdata.RegionTotals, 0, K)
	for e := range K {
		t := rawdata.RegionTotals{Region: union[e][0], Labels: union[e][1], Ranks: int(sm0[K+e]), SumS: sm0[e], MaxS: mx0[e], MinS: -mx0[K+e]}
		rec.Totals = append(rec.Totals, t)
	}
	rec.Misuse = rawdata.RegionMisuse{Misuses: int64(sms[0]), Drops: int64(sms[1]), Unclosed: int64(sms[2])}
	for _, row := range rows {
		if row.Nranks < p {
			rec.Misuse.Partial++
		}
	}
	for k := range numMisuse {
		if n := int64(sms[4+int(k)]); n > 0 {
			if rec.Misuse.Kinds == nil {
				rec.Misuse.Kinds = map[string]int64{}
			}
			rec.Misuse.Kinds[k.String()] = n
		}
	}
	if lowest[0] < int64(p) {
		rec.Misuse.First = fmt.Sprintf("rank %d: %s", lowest[0], firstMisuse)
	}
	rec.RunLocalS = mxs[3]
	rec.RunS = rec.RunLocalS
	if synced != "none" {
		if nb := int(sms[3]); nb > 0 {
			which := fmt.Sprintf("ranks [%d]", int(-mxs[4]))
			if nb > 1 {
				which = fmt.Sprintf("%d ranks (the lowest %d)", nb, int(-mxs[4]))
			}
			if r.opt.RefuseNoBound {
				return nil, fmt.Errorf("region: %s state no bound on their global clock (their clock synchronizations stated none), and Options.RefuseNoBound is set", which)
			}
			rec.NoBound = fmt.Sprintf("%s state no bound on their global clock (their clock synchronizations stated none): global_runtime_s, entry_spread_s and the global times are left out (NaN); runtime_s, each rank on its own clock, stands", which)
			dropGlobal(res.Rows)
		} else {
			b := mxs[0]
			rec.BoundS = &b
			if !math.IsInf(mxs[2], -1) {
				rec.RunS = mxs[2] + mxs[1]
			}
		}
	}
	ranks := make([]cpuload.Rank, p)
	for i := range ranks {
		ranks[i] = cpuload.RankOf(loads[i*cpuload.RankFields:])
	}
	res.CPULoad = cpuload.Combine(ranks)
	rec.CloseS = f.Seconds(r.clk.Now() - t0)
	fmt.Fprintf(r.opt.notes(), "region: %d occurrences of %d regions on %d ranks: %s\n", len(rows), K, p, rec.Misuse)
	if out.Dir == "" {
		return res, nil
	}
	syncs := []*syncPoint{r.startSync, endSync}
	if err := r.write(out, res, syncs); err != nil {
		return res, err
	}
	if r.spill != nil && spillErr == nil && !r.incomplete {
		// Written: the spill files are no longer needed (those of other
		// nodes' ranks, on a file system rank 0 does not see, stay).
		if err := os.RemoveAll(spillDir(out.Dir, out.RunID, out.Mpirun)); err != nil {
			return res, fmt.Errorf("region: %w", err)
		}
	}
	return res, nil
}

func sliceOrNil[T any](s []T, n int) []T {
	if s == nil {
		return nil
	}
	return s[:n]
}

// perRank sends this rank's records and RankLog to rank 0, which receives
// them one rank at a time into rows[…].PerRank and rec.PerRank
// (collective; Output.PerRank).
func (r *Recorder) perRank(out Output, recs []mine, rows []Row, rec *Record, log RankLog) error {
	c, p := r.c, r.c.Size()
	pack := func(recs []mine) []float64 {
		v := make([]float64, 0, 5*len(recs))
		for _, m := range recs {
			v = append(v, float64(m.slot), m.ls, m.le, m.gs, m.ge)
		}
		return v
	}
	if c.Rank() != 0 {
		b, err := json.Marshal(log)
		if err != nil {
			return fmt.Errorf("region: %w", err)
		}
		if err := sendBytes(c, b, 0, mpi.TagRegion+1); err != nil {
			return fmt.Errorf("region: %w", err)
		}
		if err := sendBytes(c, mpi.Bytes(pack(recs)), 0, mpi.TagRegion+2); err != nil {
			return fmt.Errorf("region: %w", err)
		}
		return nil
	}
	for i := range rows {
		rows[i].PerRank = make([]RankSpan, p)
		for k := range rows[i].PerRank {
			rows[i].PerRank[k].Rank = -1
		}
	}
	fill := func(k int, v []float64) {
		for i := 0; i+5 <= len(v); i += 5 {
			rows[int(v[i])].PerRank[k] = RankSpan{Rank: k, LocalStartS: v[i+1], LocalEndS: v[i+2], GlobalStartS: v[i+3], GlobalEndS: v[i+4]}
		}
	}
	fill(0, pack(recs))
	for k := 1; k < p; k++ {
		b, err := recvBytes(c, k, mpi.TagRegion+1)
		if err != nil {
			return fmt.Errorf("region: %w", err)
		}
		var l RankLog
		if err := json.Unmarshal(b, &l); err != nil {
			return fmt.Errorf("region: rank %d's log: %w", k, err)
		}
		rec.PerRank = append(rec.PerRank, l)
		if b, err = recvBytes(c, k, mpi.TagRegion+2); err != nil {
			return fmt.Errorf("region: %w", err)
		}
		v := make([]float64, len(b)/8)
		copy(mpi.Bytes(v), b)
		fill(k, v)
	}
	return nil
}

// sendBytes sends b's length and then b (unless empty) to dest.
func sendBytes(c mpi.Comm, b []byte, dest, tag int) error {
	if err := c.SendInt64(int64(len(b)), dest, tag); err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	return c.Send(b, dest, tag)
}

// recvBytes receives what sendBytes sent from src.
func recvBytes(c mpi.Comm, src, tag int) ([]byte, error) {
	n, err := c.RecvInt64(src, tag)
	if err != nil || n == 0 {
		return nil, err
	}
	b := make([]byte, n)
	return b, c.Recv(b, src, tag)
}

// unionKeys merges every rank's keys along a binomial tree to rank 0 and
// broadcasts the union (collective): rank 0's keys first, in its order,
// then each lower subtree's new keys before a higher one's. The memory of
// each rank is that of the union, whatever the rank count.
func unionKeys(c mpi.Comm, keys [][2]string) ([][2]string, error) {
	p, rank := c.Size(), c.Rank()
	seen := make(map[[2]string]bool, len(keys))
	for _, k := range keys {
		seen[k] = true
	}
	for mask := 1; mask < p; mask <<= 1 {
		if rank&mask != 0 {
			b, err := json.Marshal(keys)
			if err != nil {
				return nil, err
			}
			if err := sendBytes(c, b, rank-mask, mpi.TagRegion+3); err != nil {
				return nil, err
			}
			break
		}
		if rank+mask >= p {
			continue
		}
		b, err := recvBytes(c, rank+mask, mpi.TagRegion+3)
		if err != nil {
			return nil, err
		}
		var more [][2]string
		if err := json.Unmarshal(b, &more); err != nil {
			return nil, err
		}
		for _, k := range more {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var s string
	if rank == 0 {
		b, err := json.Marshal(keys)
		if err != nil {
			return nil, err
		}
		s = string(b)
	}
	if err := bcastString(c, &s); err != nil {
		return nil, err
	}
	var all [][2]string
	if err := json.Unmarshal([]byte(s), &all); err != nil {
		return nil, err
	}
	return all, nil
}
