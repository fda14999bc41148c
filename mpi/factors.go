package mpi

import (
	"fmt"

	"github.com/reprobench/reprobench/factor"
)

// The call parameters of the factor table (package factor) as the
// operation table sees them: a call takes the factor whose Name is the
// name of one of its row's Params (paramNames), and an Observation
// carries the levels of those it takes in Params, which the binding
// copies into rb_args.params (the slot factor.Factor.CName names) and the
// simulator reads through the family's accessors.

// FactorParam returns the operation-table parameter of the factor id (the
// Param of the same name), or 0 when no call takes it.
func FactorParam(id factor.ID) Param {
	n := id.String()
	for i, pn := range paramNames {
		if pn == n {
			return 1 << i
		}
	}
	return 0
}

// TakesFactor reports whether the call reads the call parameter id.
func (op *Op) TakesFactor(id factor.ID) bool {
	p := FactorParam(id)
	return p != 0 && op.Takes(p)
}

// Levels returns the levels of the call parameters that c takes: v's, or
// the factor's default where v does not set one; the parameters c does
// not take are unset (their raw cells are empty).
func (c Call) Levels(v factor.Values) factor.Values {
	var out factor.Values
	if !c.Valid() {
		return out
	}
	for _, id := range factor.CallParams() {
		if ops[c].TakesFactor(id) {
			out.Set(id, v.Level(id))
		}
	}
	return out
}

// SetParams gives o the levels v of its call's parameters
// (Call.Levels): o.Params, and the family-typed fields that mirror them
// (Skew of vcoll, BWWindow and RMASync of p2p).
func (o *Observation) SetParams(v factor.Values) {
	o.Params = o.Call.Levels(v)
	if l, ok := o.Params.Get(factor.Skew); ok {
		o.Skew = int(l)
	}
	if l, ok := o.Params.Get(factor.BWWindow); ok {
		o.BWWindow = int(l)
	}
	if l, ok := o.Params.Get(factor.RMASync); ok {
		o.RMASync = RMASync(l)
	}
}

// validateParams checks the levels o.Params sets against the factor
// table's bounds, without allocating unless one is out of them.
func (o *Observation) validateParams() error {
	for _, id := range factor.CallParams() {
		v, ok := o.Params.Get(id)
		if !ok {
			continue
		}
		if f := id.Row(); !f.Valid(v) {
			_, err := f.Parse(f.Format(v))
			return fmt.Errorf("mpi: %v: %w", o.Call, err)
		}
	}
	return nil
}
