//go:build amd64

package timing

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestCPUIDMatchesXSysCPU checks our CPUID instruction against the bits
// golang.org/x/sys/cpu reads with its own.
func TestCPUIDMatchesXSysCPU(t *testing.T) {
	_, _, ecx1, edx1 := cpuid(1, 0)
	_, ebx7, _, _ := cpuid(7, 0)
	for _, c := range []struct {
		name       string
		ours, xsys bool
	}{
		{"SSE2 (leaf 1 EDX 26)", edx1&(1<<26) != 0, cpu.X86.HasSSE2},
		{"SSE4.2 (leaf 1 ECX 20)", ecx1&(1<<20) != 0, cpu.X86.HasSSE42},
		{"POPCNT (leaf 1 ECX 23)", ecx1&(1<<23) != 0, cpu.X86.HasPOPCNT},
		{"BMI1 (leaf 7 EBX 3)", ebx7&(1<<3) != 0, cpu.X86.HasBMI1},
		{"ERMS (leaf 7 EBX 9)", ebx7&(1<<9) != 0, cpu.X86.HasERMS},
	} {
		if c.ours != c.xsys {
			t.Errorf("%s: our CPUID says %v, x/sys/cpu %v", c.name, c.ours, c.xsys)
		}
	}
	f := DetectTSC()
	if !f.Supported || !f.SSE2 {
		t.Errorf("amd64 facts %+v", f)
	}
	// The kernel derives its flags from the same CPUID bits; a difference is
	// worth seeing (a hypervisor or boot option), not necessarily a bug.
	if f.CPUInfoRead && (f.CPUIDRDTSCP != f.RDTSCPFlag || f.CPUIDInvariant != f.NonstopTSC) {
		t.Logf("CPUID and /proc/cpuinfo disagree: %+v", f)
	}
}
