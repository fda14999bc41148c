package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSysfs lays out a fake /sys/devices/system/cpu for CPU 0: files maps a
// path relative to cpu0 to its content.
func writeSysfs(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		full := filepath.Join(root, "cpu0", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func cacheIndex(i, level, typ, size, shared string) map[string]string {
	d := "cache/index" + i + "/"
	return map[string]string{d + "level": level, d + "type": typ, d + "size": size, d + "shared_cpu_list": shared}
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// TestPrivateBytes: the last level private to CPU 0's core (its
// hardware threads), never a shared level or an instruction cache.
func TestPrivateBytes(t *testing.T) {
	l1d := cacheIndex("0", "1", "Data", "48K", "0,36")
	l1i := cacheIndex("1", "1", "Instruction", "32K", "0,36")
	l2 := cacheIndex("2", "2", "Unified", "2048K", "0,36")
	l3 := cacheIndex("3", "3", "Unified", "107520K", "0-35,72-107")
	smt := map[string]string{"topology/thread_siblings_list": "0,36"}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"L2 private to an SMT core, L3 shared", merge(smt, l1d, l1i, l2, l3), 2048 << 10},
		{"no L2: L1 data", merge(smt, l1d, l1i, l3), 48 << 10},
		{"no topology: CPU 0 alone", merge(cacheIndex("0", "1", "Data", "32K", "0"), cacheIndex("2", "2", "Unified", "1M", "0"), cacheIndex("3", "3", "Unified", "32M", "0-1")), 1 << 20},
		{"every level private (one CPU)", merge(cacheIndex("0", "1", "Data", "32K", "0"), cacheIndex("3", "3", "Unified", "16M", "0")), 16 << 20},
	} {
		got, err := PrivateBytes(writeSysfs(t, c.files))
		if err != nil || got != c.want {
			t.Errorf("%s: PrivateBytes = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	if _, err := PrivateBytes(writeSysfs(t, merge(smt, l3, l1i))); err == nil || !strings.Contains(err.Error(), "private cache") {
		t.Errorf("only shared and instruction caches: err = %v, want one naming the private cache", err)
	}
	if _, err := PrivateBytes(t.TempDir()); err == nil {
		t.Error("empty sysfs: no error")
	}
}
