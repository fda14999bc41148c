//go:build amd64

package timing

import "golang.org/x/sys/cpu"

// Implemented in tsc_amd64.s.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
func rdtscp() uint64
func rdtscpAux() (ticks uint64, aux uint32)
func rdtscFenced() uint64

const tscArchSupported = true

// cpuidFacts fills the CPUID part of the facts with our own CPUID
// instruction: golang.org/x/sys/cpu does not expose RDTSCP or the invariant
// TSC bit, but it does tell whether SSE2 (hence LFENCE) is there.
func cpuidFacts(f *TSCFacts) {
	f.SSE2 = cpu.X86.HasSSE2
	maxExt, _, _, _ := cpuid(0x80000000, 0)
	if maxExt >= 0x80000001 {
		_, _, _, edx := cpuid(0x80000001, 0)
		f.CPUIDRDTSCP = edx&(1<<27) != 0
	}
	if maxExt >= 0x80000007 {
		_, _, _, edx := cpuid(0x80000007, 0)
		f.CPUIDInvariant = edx&(1<<8) != 0
	}
}
