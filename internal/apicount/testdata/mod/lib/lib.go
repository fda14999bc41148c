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
