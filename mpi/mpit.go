package mpi

// ControlVariable is one MPI_T control variable as the library reports
// it (ControlVariables).
type ControlVariable struct {
	Name string
	// Value is the value as text: a number in C's %d, %u, %lu, %llu or %g
	// format, or the string; empty when it could not be read.
	Value string
	// Type is the value's MPI datatype: int, unsigned, unsigned_long,
	// unsigned_long_long, count, char, double, bool or other.
	Type string
	// Enum are the variable's enumerated values, "value=name", where the
	// library has an MPI_T enumeration for it.
	Enum []string
	// Bound is set for a variable bound to an MPI object (it has no value
	// without one).
	Bound bool
}
