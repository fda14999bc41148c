package timing

import (
	"fmt"
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for s, want := range map[string][]int{
		"": nil, "  ": nil, "0": {0}, "0-3": {0, 1, 2, 3}, "0-3,8,10-11": {0, 1, 2, 3, 8, 10, 11},
		"2,0": {2, 0}, " 1 , 3-4 ": {1, 3, 4}, "8191": {8191},
	} {
		got, err := ParseCPUList(s)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"x", "3-1", "1,1", "0-2,2", "-1", "1-", "0-999999999", "8192", ",", "1,,2", "+1", "1 2", "0x1"} {
		if got, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) = %v, want an error", bad, got)
		}
	}
}

func ExampleParseCPUList() {
	cpus, err := ParseCPUList("0-3,8,10-11")
	fmt.Println(cpus, err)
	_, err = ParseCPUList("3-1")
	fmt.Println(err)
	// Output:
	// [0 1 2 3 8 10 11] <nil>
	// timing: CPU list "3-1": range "3-1" ends below its start
}
