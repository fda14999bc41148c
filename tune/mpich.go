package tune

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/provenance"
)

// MPICHTuningCvar is the control variable that loads the file
// WriteMPICHJSON writes: MPICH's MPIR-level collective selection (MPICH
// 4.0), the level whose leaves are the MPIR_<Coll>_intra_<algorithm>
// functions that MPIR_CVAR_<COLL>_INTRA_ALGORITHM=auto chooses among.
const MPICHTuningCvar = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"

// MPICHDeviceOff returns the environment under which the file
// WriteMPICHJSON writes runs its choices as the forced candidates were
// measured: for each call of ds where some cell replaced the default,
// MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE=0 (the MPIR level selects, not ch4
// first), and provenance's read-back of it ("REPROBENCH_EXPECT_CVARS=…").
// With the device-level collective on (MPICH's default), ch4 selects
// first and may take a path of its own (on one node, the POSIX
// shared-memory release_gather algorithms) that reaches the MPIR level,
// and so the file, only where it falls back. A call whose every cell
// kept the default gets nothing: it runs exactly as without the file.
// It returns nil when no call needs it.
func MPICHDeviceOff(ds []Decision) []string {
	var env, expect []string
	seen := map[string]bool{}
	for _, d := range ds {
		if d.Chosen == d.Default || seen[d.Call] {
			continue
		}
		seen[d.Call] = true
		v := "MPIR_CVAR_" + strings.ToUpper(strings.TrimPrefix(d.Call, "MPI_")) + "_DEVICE_COLLECTIVE"
		env = append(env, v+"=0")
		expect = append(expect, v+"=0")
	}
	if len(expect) > 0 {
		env = append(env, provenance.ExpectEnv+"="+strings.Join(expect, ";"))
	}
	return env
}

// MPICHResolver maps a candidate of a call to the MPIR algorithm
// function MPICH's selection JSON names, e.g. "MPIR_Allreduce_intra_recursive_doubling".
// It is not asked for the default.
type MPICHResolver func(call, candidate string) (string, error)

// WriteMPICHJSON writes ds into MPICH's collective selection JSON: base is
// the selection the library uses without a file (MPICH's
// coll_selection.json of the installed version), and the output is base
// with, for each decided call, the intra-communicator tree replaced by
// one that first tests the measured process counts (comm_size<=) and
// message sizes (avg_msg_size<), then falls back to base's own tree.
// A measured size's choice holds from that size up to the next measured
// size; below the smallest and above the largest measured size, for
// process counts not measured, and where the default is kept, base's
// tree decides, so the library behaves as without the file there. The
// keys keep base's order, which MPICH's first-match search depends on.
// JSON has no comments, and MPICH refuses unknown keys: each decision's
// interval and data source go to the sidecar (WriteDecisionsJSON). Only
// MPI_Allreduce, MPI_Bcast and MPI_Reduce are written, whose
// avg_msg_size is count × type size, the size a Sample carries. base is
// required (InstalledMPICHBase reads the installed library's).
func WriteMPICHJSON(w io.Writer, ds []Decision, resolve MPICHResolver, base []byte) error {
	if len(base) == 0 {
		return errors.New("tune: MPICH selection: no base selection (InstalledMPICHBase reads the installed library's)")
	}
	root, err := parseOrdered(base)
	if err != nil {
		return fmt.Errorf("tune: MPICH base selection: %w", err)
	}
	if root.obj == nil {
		return errors.New("tune: MPICH base selection is not a JSON object")
	}
	byCall := map[string][]Decision{}
	for _, d := range ds {
		if _, ok := openMPICollID[d.Call]; !ok {
			return fmt.Errorf("tune: MPICH selection: %s is not one of MPI_Allreduce, MPI_Bcast, MPI_Reduce", d.Call)
		}
		byCall[d.Call] = append(byCall[d.Call], d)
	}
	for call, cds := range byCall {
		key := "collective=" + strings.ToLower(strings.TrimPrefix(call, "MPI_"))
		coll := root.get(key)
		if coll == nil || coll.obj == nil {
			return fmt.Errorf("tune: MPICH base selection has no %q object", key)
		}
		intra, inter := coll.get("comm_type=intra"), coll.get("comm_type=inter")
		if intra == nil {
			intra, inter = coll, coll // one tree for both kinds of communicator
		}
		tree, err := mpichIntra(cds, intra, resolve)
		if err != nil {
			return err
		}
		repl := &onode{}
		repl.set("comm_type=intra", tree)
		if inter != nil {
			repl.set("comm_type=inter", inter)
		}
		root.set(key, repl)
	}
	bw := bufio.NewWriter(w)
	root.write(bw, "")
	bw.WriteString("\n")
	return bw.Flush()
}

// mpichIntra builds the intra-communicator tree of one call's decisions.
func mpichIntra(cds []Decision, base *onode, resolve MPICHResolver) (*onode, error) {
	slices.SortFunc(cds, func(a, b Decision) int { return a.Cell.compare(b.Cell) })
	t := &onode{}
	last := 0
	for i := 0; i < len(cds); {
		np := cds[i].Np
		j := i
		for j < len(cds) && cds[j].Np == np {
			j++
		}
		if np-1 > last {
			t.set("comm_size<="+strconv.Itoa(np-1), base)
		}
		m := &onode{}
		msgs := cds[i:j]
		if msgs[0].Bytes > 0 {
			m.set("avg_msg_size<"+strconv.FormatInt(msgs[0].Bytes, 10), base)
		}
		for k, d := range msgs {
			leaf := base
			if d.Chosen != d.Default {
				name, err := resolve(d.Call, d.Chosen)
				if err != nil {
					return nil, fmt.Errorf("tune: MPICH selection: %s: %w", d.Cell, err)
				}
				leaf = &onode{}
				leaf.set("algorithm="+name, &onode{})
			}
			if k+1 < len(msgs) {
				m.set("avg_msg_size<"+strconv.FormatInt(msgs[k+1].Bytes, 10), leaf)
			} else {
				m.set("avg_msg_size<="+strconv.FormatInt(d.Bytes, 10), leaf)
			}
		}
		m.set("avg_msg_size=any", base)
		t.set("comm_size<="+strconv.Itoa(np), m)
		last = np
		i = j
	}
	t.set("comm_size=any", base)
	return t, nil
}

// onode is a JSON value that keeps its objects' key order: an object
// (obj non-nil, keys in order) or any other value as raw JSON.
type onode struct {
	keys []string
	obj  map[string]*onode
	raw  json.RawMessage
}

func (n *onode) get(k string) *onode {
	if n.obj == nil {
		return nil
	}
	return n.obj[k]
}

// set adds or replaces k, keeping its place when it exists.
func (n *onode) set(k string, v *onode) {
	if n.obj == nil {
		n.obj = map[string]*onode{}
	}
	if _, ok := n.obj[k]; !ok {
		n.keys = append(n.keys, k)
	}
	n.obj[k] = v
}

func (n *onode) write(w *bufio.Writer, indent string) {
	if n.obj == nil {
		if n.raw == nil {
			w.WriteString("{}")
			return
		}
		w.Write(n.raw)
		return
	}
	if len(n.keys) == 0 {
		w.WriteString("{}")
		return
	}
	w.WriteString("{\n")
	for i, k := range n.keys {
		w.WriteString(indent + "    ")
		w.Write(jsonString(k))
		w.WriteString(": ")
		n.obj[k].write(w, indent+"    ")
		if i+1 < len(n.keys) {
			w.WriteString(",")
		}
		w.WriteString("\n")
	}
	w.WriteString(indent + "}")
}

// jsonString is s as a JSON string, with <, > and & as they are (MPICH
// compares the keys' text, and "comm_size<=4" reads better unescaped).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// parseOrdered parses one JSON value, keeping object key order.
func parseOrdered(b []byte) (*onode, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := parseValue(dec, b)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder, src []byte) (*onode, error) {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &onode{obj: map[string]*onode{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := parseValue(dec, src)
			if err != nil {
				return nil, err
			}
			if _, dup := n.obj[k]; dup {
				return nil, fmt.Errorf("duplicate key %q", k)
			}
			n.set(k, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return n, nil
	case json.Delim('['):
		depth := 1
		for depth > 0 {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			switch t {
			case json.Delim('['), json.Delim('{'):
				depth++
			case json.Delim(']'), json.Delim('}'):
				depth--
			}
		}
	}
	raw := bytes.TrimLeft(src[start:dec.InputOffset()], " \t\r\n,:")
	return &onode{raw: json.RawMessage(raw)}, nil
}
