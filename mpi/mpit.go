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

// ControlVariableSource is implemented by the communicators of a world
// that has control variables of its own instead of a library's (package
// mpitest's simulated MPI_T table): package provenance reads them from the
// communicator rather than through MPI_T.
type ControlVariableSource interface {
	// ControlVariables returns every control variable with its value in
	// this world, and the same variables at their defaults.
	ControlVariables() (values, defaults []ControlVariable)
}
