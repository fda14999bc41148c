package main

import (
	"bytes"
	"testing"
)

// TestClasses runs apicount on a module whose lib package declares one
// name of each class (testdata/mod) and checks every class and count.
func TestClasses(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, []string{"-C", "testdata/mod", "-list", "-all"}); err != nil {
		t.Fatal(err)
	}
	want := `names     exported    4  outside    2  tests    1  nowhere    1
members   exported    4  outside    1  tests    1  nowhere    2
outside lib.T
nowhere lib.T.M
tests lib.T.Tested
nowhere lib.T.Unused
outside lib.T.Used
tests lib.Tested
nowhere lib.Unused
outside lib.Used
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
