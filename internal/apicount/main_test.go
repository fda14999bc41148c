package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestClasses runs apicount on a module whose lib package declares one
// name of each naming class and names its examples reach (or not), and
// whose vals package declares types used (or not) through their values
// (testdata/mod), and checks every class and count. Each name of the
// fixture says in its doc comment why it is in its class.
func TestClasses(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, []string{"-C", "testdata/mod", "-list", "-all"}); err != nil {
		t.Fatal(err)
	}
	want := `names     exported   23  outside    7  values    4  tests    2  nowhere   10 (in examples 2)
members   exported   11  outside    5  values    0  tests    2  nowhere    4 (in examples 0)
nowhere lib.ExampleValue
nowhere lib.Helped (example)
nowhere lib.Hidden
nowhere lib.Shown (example)
outside lib.T
nowhere lib.T.M
tests lib.T.Tested
nowhere lib.T.Unused
outside lib.T.Used
tests lib.Tested
nowhere lib.Unused
outside lib.Used
nowhere vals.E
outside vals.E.N
values vals.G
outside vals.G.Get
outside vals.MakeG
nowhere vals.MakeO
tests vals.MakeQ
outside vals.MakeR
outside vals.MakeS
outside vals.MakeU
outside vals.NewP
nowhere vals.O
nowhere vals.O.N
values vals.P
outside vals.P.Do
nowhere vals.Q
tests vals.Q.N
values vals.R
outside vals.R.N
nowhere vals.S
nowhere vals.S.N
values vals.U
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestListLeavesOutValues checks that -list without -all lists neither the
// outside class nor the values class.
func TestListLeavesOutValues(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, []string{"-C", "testdata/mod", "-list"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n")[2:] {
		if c, _, _ := strings.Cut(l, " "); c != "tests" && c != "nowhere" {
			t.Errorf("listed %q", l)
		}
	}
	if !strings.Contains(out.String(), "nowhere vals.S\n") {
		t.Errorf("vals.S not listed:\n%s", out.String())
	}
}
