package lib_test

import (
	"fmt"

	"example.com/mod/lib"
)

// helper's String is called by fmt, not named.
type helper struct{}

func (helper) String() string { return fmt.Sprint(lib.Helped()) }

func unreached() int { return lib.Hidden() }

func ExampleShown() {
	fmt.Println(lib.Shown(), helper{})
	// Output: 5 6
}
