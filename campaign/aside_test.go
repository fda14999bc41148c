package campaign

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsideCopiesNotGlobbed checks duplicates: "find DIR -name '*.csv'"
// over a resumed campaign picked up the copies moved aside (n 715 → 882).
// Moved files now end in asideSuffix, so no glob for data matches them.
func TestAsideCopiesNotGlobbed(t *testing.T) {
	dir := t.TempDir()
	base := outputBase(dir, "c1", 3)
	left := []string{base + ".csv", base + ".csv.partial", base + ".perrank.csv", base + ".json.partial"}
	for _, f := range left {
		if err := os.WriteFile(f, []byte("run_id,mpirun\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	moved, err := moveAside(dir, "c1", 3, 2)
	if err != nil || len(moved) != len(left) {
		t.Fatalf("moveAside: %q, %v", moved, err)
	}
	var data []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".csv") || strings.HasSuffix(p, ".json")) {
			data = append(data, p)
		}
		return err
	})
	if len(data) > 0 {
		t.Errorf("files matching *.csv or *.json after moving aside: %q", data)
	}
	for _, m := range moved {
		if !strings.HasSuffix(m, asideSuffix) || !strings.HasPrefix(m, asideDir(dir, "c1")) {
			t.Errorf("moved to %s: want under %s, ending in %s", m, asideDir(dir, "c1"), asideSuffix)
		}
	}
}
