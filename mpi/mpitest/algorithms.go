package mpitest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// The simulated algorithm model. MPI_Allreduce, MPI_Bcast and MPI_Reduce
// each have a simulated control variable that selects their algorithm, as
// a library's MPI_T control variable does, and one for a segment size:
//
//	RBSIM_<COLL>_ALGORITHM  auto (0, the default), binomial (1), linear (2), segmented (3)
//	RBSIM_<COLL>_SEGSIZE    bytes per segment of "segmented", default 1024
//
// with <COLL> one of ALLREDUCE, BCAST, REDUCE. auto and binomial are the
// same algorithm (the binomial trees of coll.go; MPI_Allreduce: reduce to
// rank 0, then broadcast): one algorithm under two names. linear sends
// from (or receives at) the root to every other rank in turn: P−1
// messages in sequence at the root instead of ⌈log2 P⌉ rounds, the same
// at P = 2. segmented runs the binomial algorithm once per segment, so
// each segment pays the latency: ⌈n/SEGSIZE⌉ times the per-message cost
// of the binomial one (MPI_Reduce's segments hold whole elements, at
// least one). MPI_Allreduce's linear and segmented apply to both its
// reduce and its broadcast. The variables' names are also the
// environment variables that set them (CvarsFromEnv); Config.Cvars holds
// a world's settings, and a world's communicators report the table
// through mpi.ControlVariableSource.

// simCvarPrefix begins the names of the simulated control variables.
const simCvarPrefix = "RBSIM_"

// defaultSegsize is the default of RBSIM_<COLL>_SEGSIZE, bytes.
const defaultSegsize = 1024

// segmentOverhead is what each segment of the segmented algorithm costs
// each rank, in virtual time.
const segmentOverhead = time.Microsecond

// The simulated algorithms, as RBSIM_<COLL>_ALGORITHM's values.
const (
	algAuto      = 0
	algBinomial  = 1
	algLinear    = 2
	algSegmented = 3
)

var algNames = []string{"auto", "binomial", "linear", "segmented"}

type simColl int

const (
	simAllreduce simColl = iota
	simBcast
	simReduce
	numSimColls
)

var simCollNames = [numSimColls]string{"ALLREDUCE", "BCAST", "REDUCE"}

// simAlg is a collective's selected algorithm and segment size (bytes).
type simAlg struct{ alg, seg int }

func algCvar(c simColl) string { return simCvarPrefix + simCollNames[c] + "_ALGORITHM" }
func segCvar(c simColl) string { return simCvarPrefix + simCollNames[c] + "_SEGSIZE" }

// CvarsFromEnv returns the simulated control variables set in environ
// ("NAME=value" entries, as os.Environ): those whose name begins with
// simCvarPrefix. It returns nil when there are none.
func CvarsFromEnv(environ []string) map[string]string {
	var out map[string]string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(k, simCvarPrefix) {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// parseCvars reads Config.Cvars: every name must be a simulated control
// variable; an algorithm is a name or its number, a segment size a
// positive number of bytes.
func parseCvars(set map[string]string) ([numSimColls]simAlg, error) {
	var out [numSimColls]simAlg
	for c := range numSimColls {
		out[c] = simAlg{alg: algAuto, seg: defaultSegsize}
	}
	for _, k := range slices.Sorted(mapKeys(set)) {
		v := strings.TrimSpace(set[k])
		c := slices.IndexFunc(simCollNames[:], func(n string) bool {
			return k == simCvarPrefix+n+"_ALGORITHM" || k == simCvarPrefix+n+"_SEGSIZE"
		})
		if c < 0 {
			return out, fmt.Errorf("mpitest: Config.Cvars: no simulated control variable %s (want %s<ALLREDUCE|BCAST|REDUCE>_<ALGORITHM|SEGSIZE>)", k, simCvarPrefix)
		}
		if strings.HasSuffix(k, "_SEGSIZE") {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return out, fmt.Errorf("mpitest: Config.Cvars: %s=%q: want a positive number of bytes", k, v)
			}
			out[c].seg = n
			continue
		}
		i := slices.Index(algNames, strings.ToLower(v))
		if n, err := strconv.Atoi(v); err == nil {
			i = n
		}
		if i < 0 || i >= len(algNames) {
			return out, fmt.Errorf("mpitest: Config.Cvars: %s=%q: want one of %s or 0–%d", k, v, strings.Join(algNames, ", "), len(algNames)-1)
		}
		out[c].alg = i
	}
	return out, nil
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// cvarTable returns the simulated MPI_T table with algs' values.
func cvarTable(algs [numSimColls]simAlg) []mpi.ControlVariable {
	enum := make([]string, len(algNames))
	for i, n := range algNames {
		enum[i] = strconv.Itoa(i) + "=" + n
	}
	var out []mpi.ControlVariable
	for c := range numSimColls {
		out = append(out,
			mpi.ControlVariable{Name: algCvar(c), Value: strconv.Itoa(algs[c].alg), Type: "int", Enum: slices.Clone(enum)},
			mpi.ControlVariable{Name: segCvar(c), Value: strconv.Itoa(algs[c].seg), Type: "int"})
	}
	return out
}

// ControlVariableTable returns the simulated control variables at their
// defaults: names, values, types and enumerations, as mpi.ControlVariables
// reports a library's.
func ControlVariableTable() []mpi.ControlVariable {
	a, _ := parseCvars(nil)
	return cvarTable(a)
}

// ControlVariables returns the world's simulated control variables and
// their defaults (mpi.ControlVariableSource).
func (c *comm) ControlVariables() (values, defaults []mpi.ControlVariable) {
	return cvarTable(c.r.w.algs), ControlVariableTable()
}

var _ mpi.ControlVariableSource = (*comm)(nil)

// bcastAlg is MPI_Bcast's body with the selected algorithm.
func (c *comm) bcastAlg(buf []byte, root int, fn string, a simAlg) error {
	switch a.alg {
	case algLinear:
		return c.bcastLinear(buf, root, fn)
	case algSegmented:
		for off := 0; off < len(buf); off += a.seg {
			if err := c.bcast(buf[off:min(off+a.seg, len(buf))], root, fn); err != nil {
				return err
			}
			c.r.now += segmentOverhead.Seconds()
		}
		if len(buf) > 0 {
			return nil
		}
	}
	return c.bcast(buf, root, fn)
}

// bcastLinear: the root sends buf to every other rank in rank order.
func (c *comm) bcastLinear(buf []byte, root int, fn string) error {
	n := len(buf)
	if c.rank != root {
		return c.r.recvN(c, buf, n, root, mkey{ctx: c.ctx | 1, src: int32(root), tag: tagBcast}, fn)
	}
	for d := range c.size {
		if d == root {
			continue
		}
		if _, err := c.r.sendN(c.world(d), mkey{ctx: c.ctx | 1, src: int32(c.rank), tag: tagBcast}, buf, n, nil); err != nil {
			return err
		}
	}
	return nil
}

// reduceAlg is MPI_Reduce's body with the selected algorithm: the result
// in recv[:len(send)] at root.
func (c *comm) reduceAlg(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, root int, fn string, a simAlg) error {
	switch a.alg {
	case algLinear:
		return c.reduceLinear(send, recv, count, dt, op, root, fn)
	case algSegmented:
		if count == 0 {
			break
		}
		size := len(send) / count
		per := max(1, a.seg/size) // elements per segment
		for i := 0; i < count; i += per {
			k := min(per, count-i)
			var r []byte
			if c.rank == root {
				r = recv[i*size : (i+k)*size]
			}
			if err := c.reduce(send[i*size:(i+k)*size], r, k, dt, op, root, fn); err != nil {
				return err
			}
			c.r.now += segmentOverhead.Seconds()
		}
		return nil
	}
	return c.reduce(send, recv, count, dt, op, root, fn)
}

// reduceLinear: every other rank sends its data to root, which combines
// them in rank order.
func (c *comm) reduceLinear(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, root int, fn string) error {
	n := len(send)
	if c.rank != root {
		return c.csend(root, tagReduce, send)
	}
	acc := c.scratch(0, n)
	copy(acc, send)
	tmp := c.scratch(1, n)
	for s := range c.size {
		if s == root {
			continue
		}
		if err := c.crecv(tmp, s, tagReduce, fn); err != nil {
			return err
		}
		combine(acc, tmp, count, dt, op)
	}
	copy(recv[:n], acc)
	return nil
}

// allreduceAlg is MPI_Allreduce's body: reduce to rank 0, then broadcast,
// each with the selected algorithm; segmented does both per segment.
func (c *comm) allreduceAlg(send, recv []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, fn string, a simAlg) error {
	if a.alg == algSegmented && count > 0 {
		size := len(send) / count
		per := max(1, a.seg/size)
		for i := 0; i < count; i += per {
			k := min(per, count-i)
			lo, hi := i*size, (i+k)*size
			if err := c.reduce(send[lo:hi], recv[lo:hi], k, dt, op, 0, fn); err != nil {
				return err
			}
			if err := c.bcast(recv[lo:hi], 0, fn); err != nil {
				return err
			}
			c.r.now += segmentOverhead.Seconds()
		}
		return nil
	}
	if a.alg == algLinear {
		if err := c.reduceLinear(send, recv, count, dt, op, 0, fn); err != nil {
			return err
		}
		return c.bcastLinear(recv[:len(send)], 0, fn)
	}
	if err := c.reduce(send, recv, count, dt, op, 0, fn); err != nil {
		return err
	}
	return c.bcast(recv[:len(send)], 0, fn)
}
