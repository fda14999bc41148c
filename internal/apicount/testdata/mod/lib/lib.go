// Package lib declares one name of each class for apicount's test.
package lib

// Used is named by another package's non-test code.
func Used() int { return own() }

// Tested is named outside only by another package's test.
func Tested() int { return 1 }

// Unused is named by no other package (only its own code and test).
func Unused() int { return 2 }

func own() int { return Unused() }

// T has one field of each class.
type T struct {
	Used, Tested int
	Unused       int
}

// M is a method nobody outside names.
func (T) M() {}

// Shown is named only by an Example of its own package: nowhere, in
// examples.
func Shown() int { return 5 }

// Helped is named only by a method of a helper type that an Example
// names; the method itself is not named: nowhere, in examples.
func Helped() int { return 6 }

// Hidden is named only by a test-file helper no Example reaches: nowhere.
func Hidden() int { return 7 }

// ExampleValue is no example (a function of a non-test file), so the
// Hidden it names is not shown by an example.
func ExampleValue() int { return Hidden() }
