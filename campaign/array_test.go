package campaign

import (
	"slices"
	"testing"
)

func TestCompactAndExpandList(t *testing.T) {
	for _, tc := range []struct {
		ids  []int
		want string
	}{
		{[]int{0}, "0"}, {[]int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"}, {[]int{3, 9}, "3,9"}, {nil, ""},
	} {
		if got := CompactList(tc.ids); got != tc.want {
			t.Errorf("CompactList(%v) = %q, want %q", tc.ids, got, tc.want)
		}
		if got := ExpandList(tc.want); !slices.Equal(got, tc.ids) {
			t.Errorf("ExpandList(%q) = %v, want %v", tc.want, got, tc.ids)
		}
	}
	if got := ExpandList("1-7:2%1"); !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Errorf("ExpandList with step and limit: %v", got)
	}
	for _, bad := range []string{"x", "5-3", "-1", "1-2:0", "0-999999999"} {
		if got := ExpandList(bad); len(got) != 0 {
			t.Errorf("ExpandList(%q) = %v, want nothing", bad, got)
		}
	}
}

// The scontrol -o show job lines of an array of tasks 0, 2, 5 (Slurm
// 22.05 on the test fixture): task 5 pending (its line carries the array
// job's own id), 2 running, 0 completed; then a pending group.
func TestParseArrayStates(t *testing.T) {
	out := "JobId=2 ArrayJobId=2 ArrayTaskId=5 JobName=rb JobState=PENDING Reason=Resources ReqNodeList=(null) ExcNodeList=(null) NodeList= ExitCode=0:0\n" +
		"JobId=4 ArrayJobId=2 ArrayTaskId=2 JobName=rb JobState=RUNNING Reason=None ReqNodeList=(null) NodeList=vm ExitCode=0:0\n" +
		"JobId=3 ArrayJobId=2 ArrayTaskId=0 JobName=rb JobState=FAILED Reason=NonZeroExitCode NodeList=vm ExitCode=2:0\n" +
		"JobId=9 ArrayJobId=9 ArrayTaskId=7-8,10%2 JobName=rb JobState=PENDING NodeList=(null) ExitCode=0:0\n"
	got := parseArrayStates(out)
	want := map[int]taskState{
		5: {"2", "PENDING", "", "0:0"}, 2: {"4", "RUNNING", "vm", "0:0"}, 0: {"3", "FAILED", "vm", "2:0"},
		7: {"", "PENDING", "(null)", "0:0"}, 8: {"", "PENDING", "(null)", "0:0"}, 10: {"", "PENDING", "(null)", "0:0"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("task %d: %+v, want %+v", i, got[i], w)
		}
	}
	if st, sig, ok := parseExitCode("2:0"); !ok || st != 2 || sig != 0 {
		t.Errorf("parseExitCode(2:0) = %d %d %v", st, sig, ok)
	}
	if _, _, ok := parseExitCode("x"); ok {
		t.Error("parseExitCode(x) accepted")
	}
}

func TestArrayNeedsBatch(t *testing.T) {
	c := localCampaign(t, t.TempDir(), 2)
	c.Array = true
	if _, err := Start(t.Context(), c, Options{}); err == nil {
		t.Error("Array without Batch accepted")
	}
}
