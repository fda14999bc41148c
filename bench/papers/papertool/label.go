package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// cmdLabel works around the raw CSV of "reprobench run" not saying which
// process synchronization method and runtime type produced a row (they are
// only in the JSON sidecar's experiments list): it joins each row's exp with
// the sidecar and writes the method and type as label columns sync and rt,
// so that "reprobench analyze" and "reprobench compare --by sync" keep the
// methods apart. With -scheme it writes one column scheme=SYNC-RT instead
// (e.g. barrier-local), and -keep keeps only the rows of the listed schemes,
// so that "compare --by scheme" compares, say, barrier-local with
// window-global as Fig. 9 (left) of Hunold & Carpen-Amarie 2016 does. All inputs must have the
// same header; the output is one CSV with the rows of every input in order.
func cmdLabel(args []string) error {
	fs := flag.NewFlagSet("label", flag.ContinueOnError)
	out := fs.String("o", "", "output CSV file")
	scheme := fs.Bool("scheme", false, "write one column scheme=SYNC-RT instead of sync and rt")
	keep := fs.String("keep", "", "comma-separated schemes SYNC-RT to keep (default: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opt := labelOpts{scheme: *scheme}
	if *keep != "" {
		opt.keep = strings.Split(*keep, ",")
	}
	if *out == "" || fs.NArg() == 0 {
		return fmt.Errorf("label: want -o OUT.csv RAW.csv…")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	var header []string
	for _, in := range fs.Args() {
		h, err := labelOne(in, w, header, opt)
		if err != nil {
			f.Close()
			return err
		}
		header = h
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type sidecar struct {
	Experiments []struct {
		Exp         int    `json:"exp"`
		ProcSync    string `json:"proc_sync"`
		RuntimeType string `json:"runtime_type"`
	} `json:"experiments"`
}

type labelOpts struct {
	scheme bool
	keep   []string
}

// labelOne appends the rows of one raw file to w, with the header written
// first if prev is nil; it returns the input's header.
func labelOne(in string, w *csv.Writer, prev []string, opt labelOpts) ([]string, error) {
	side := strings.TrimSuffix(in, ".csv") + ".json"
	b, err := os.ReadFile(side)
	if err != nil {
		return nil, err
	}
	var meta sidecar
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", side, err)
	}
	type pr struct{ sync, rt string }
	byExp := map[string]pr{}
	for _, e := range meta.Experiments {
		byExp[strconv.Itoa(e.Exp)] = pr{e.ProcSync, e.RuntimeType}
	}
	f, err := os.Open(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", in, err)
	}
	head = slices.Clone(head)
	added := []string{"sync", "rt"}
	if opt.scheme {
		added = []string{"scheme"}
	}
	for _, a := range added {
		if slices.Contains(head, a) {
			return nil, fmt.Errorf("%s: already has a %s column", in, a)
		}
	}
	expCol := slices.Index(head, "exp")
	if expCol < 0 {
		return nil, fmt.Errorf("%s: no exp column", in)
	}
	if prev == nil {
		if err := w.Write(append(slices.Clone(head), added...)); err != nil {
			return nil, err
		}
	} else if !slices.Equal(prev, head) {
		return nil, fmt.Errorf("%s: header %v differs from %v", in, head, prev)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return head, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in, err)
		}
		m, ok := byExp[rec[expCol]]
		if !ok {
			return nil, fmt.Errorf("%s: exp %s not in %s", in, rec[expCol], side)
		}
		sch := m.sync + "-" + m.rt
		if opt.keep != nil && !slices.Contains(opt.keep, sch) {
			continue
		}
		rec = append(rec, m.sync, m.rt)
		if opt.scheme {
			rec = append(rec[:len(rec)-2], sch)
		}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
	}
}
