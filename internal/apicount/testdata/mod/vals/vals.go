// Package vals declares types that other packages use only through
// values, for apicount's values class.
package vals

// R is returned by MakeR; a user's non-test code selects its field on the
// returned value without naming R: values.
type R struct{ N int }

// MakeR returns an R.
func MakeR() R { return R{N: 1} }

// P is returned as a *P; a user's non-test code calls its method: values.
type P struct{}

// NewP returns a *P.
func NewP() *P { return &P{} }

// Do returns 3.
func (*P) Do() int { return 3 }

// G is generic; a user calls Get on an instance: values.
type G[T any] struct{ v T }

// MakeG returns a G holding v.
func MakeG[T any](v T) G[T] { return G[T]{v} }

// Get returns the held value.
func (g G[T]) Get() T { return g.v }

// Q is selected outside only in a test, which the values class does not
// count, and named by no user: nowhere.
type Q struct{ N int }

// MakeQ returns a Q.
func MakeQ() Q { return Q{} }

// S is returned and stored outside but never selected: nowhere.
type S struct{ N int }

// MakeS returns an S.
func MakeS() S { return S{} }

// E is embedded in U; a user selects E's field on a U: E is nowhere, U
// is values.
type E struct{ N int }

// U embeds E.
type U struct{ E }

// MakeU returns a U.
func MakeU() U { return U{} }

// O is selected only by its own package and its own external test:
// nowhere.
type O struct{ N int }

// MakeO returns an O.
func MakeO() O { return O{} }

var _ = MakeO().N
