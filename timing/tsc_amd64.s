#include "textflag.h"

// func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL subleaf+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func rdtscp() uint64
//
// RDTSCP waits until all previous instructions have executed before it reads
// the counter; EDX:EAX is the counter, ECX the TSC_AUX value (ignored here).
TEXT ·rdtscp(SB), NOSPLIT|NOFRAME, $0-8
	RDTSCP
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func rdtscpAux() (ticks uint64, aux uint32)
TEXT ·rdtscpAux(SB), NOSPLIT|NOFRAME, $0-12
	RDTSCP
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ticks+0(FP)
	MOVL CX, aux+8(FP)
	RET

// func rdtscFenced() uint64
//
// LFENCE keeps RDTSC from executing before the preceding instructions have
// completed locally.
TEXT ·rdtscFenced(SB), NOSPLIT|NOFRAME, $0-8
	LFENCE
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
