package clocksync_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
)

// TestCheckJSON: a Check's JSON has After as "after_s" in seconds, first,
// as when After was a float field, and reads back the same.
func TestCheckJSON(t *testing.T) {
	tm := 2.5e-7
	c := clocksync.Check{After: 1500 * time.Millisecond, Elapsed: 1.502, MaxAbs: 1e-6, Offsets: []float64{0, 1e-6}, TrueMaxAbs: &tm}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"after_s":1.5,"elapsed_s":1.502,"max_abs_offset_s":0.000001,"median_abs_offset_s":0,`
	if !strings.HasPrefix(string(b), want) {
		t.Errorf("JSON %s, want it to start with %s", b, want)
	}
	var back clocksync.Check
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, c) {
		t.Errorf("read back %+v (%v), want %+v", back, err, c)
	}
}
