package cache

import (
	"fmt"
	"github.com/reprobench/reprobench/internal/units"
	"github.com/reprobench/reprobench/mpi"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Mode selects the cache state an observation starts in: warm, cold
// (Hunold & Carpen-Amarie 2016, §5.8), or buffers moved between
// observations, cyclically as mpptest does (Gropp & Lusk 1999) or to random
// offsets (randomizing a factor, as Stanisic et al. 2017, §V, ask).
type Mode int

// The cache modes.
const (
	// Warm reuses the same buffers back to back.
	Warm Mode = iota
	// Cold overwrites a buffer the size of the core's last private
	// cache (PrivateBytes) before each observation, outside the timed
	// span.
	Cold
	// Cycle moves the message buffers to the next offset of a larger
	// allocation before each observation.
	Cycle
	// Random moves them to a random offset (seeded).
	Random
	numModes
)

var modeNames = [...]string{"warm", "cold", "cycle", "random"}

// ModeNames returns the names of the cache modes, for vocabularies.
func ModeNames() []string { return append([]string(nil), modeNames[:]...) }

// String returns the mode's name.
func (m Mode) String() string {
	if m < 0 || m >= numModes {
		return fmt.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode accepts warm, cold, cycle or random.
func ParseMode(s string) (Mode, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	for i, name := range modeNames {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("cache: unknown cache mode %q (want warm, cold, cycle or random)", s)
}

// SysCPU is where Linux describes the CPUs' caches (PrivateBytes).
const SysCPU = "/sys/devices/system/cpu"

// PrivateBytes returns the size of the last cache level private to CPU
// 0's core, read from sysfs under sysCPU (SysCPU on Linux): the data or
// unified cache of the highest level whose shared_cpu_list names only the
// core's hardware threads (topology/thread_siblings_list). Cold
// overwrites a buffer of this size before each observation, as Hunold &
// Carpen-Amarie 2016 (§5.8) do after each measurement: "the last level of
// data cache, which is private to each core … often cache level 2". A
// shared last-level cache is not flushed: a message read from it counts as
// cold here, as in the paper. It returns an error naming the directory if
// no cache's size and sharing can be read.
func PrivateBytes(sysCPU string) (int, error) {
	cpu0 := filepath.Join(sysCPU, "cpu0")
	siblings, err := readCPUList(filepath.Join(cpu0, "topology", "thread_siblings_list"))
	if err != nil {
		siblings = "0" // no topology: CPU 0 alone
	}
	dirs, _ := filepath.Glob(filepath.Join(cpu0, "cache", "index*"))
	best, bestLevel := 0, -1
	for _, d := range dirs {
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(d, name))
			if err != nil {
				return ""
			}
			return strings.TrimSpace(string(b))
		}
		if t := read("type"); t != "Data" && t != "Unified" {
			continue
		}
		shared, err := readCPUList(filepath.Join(d, "shared_cpu_list"))
		if err != nil || shared != siblings {
			continue
		}
		level, err := strconv.Atoi(read("level"))
		if err != nil {
			continue
		}
		b, err := units.ParseBytes(read("size"))
		if err != nil || b <= 0 {
			continue
		}
		if level > bestLevel {
			best, bestLevel = b, level
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("cache: no private cache's size and sharing in %s; give the flush size explicitly", filepath.Join(cpu0, "cache"))
	}
	return best, nil
}

// readCPUList reads a sysfs CPU list ("0", "0,36", "0-1") as written.
func readCPUList(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Buffers holds an observation's message buffers under a cache mode. Set
// as window.Sync.Buffers, it places the buffers of every observation (and
// flushes for Cold) inside the batches, without allocating.
type Buffers struct {
	Mode       Mode
	Send, Recv []byte // the current buffers, of the sizes asked for
	sendAll    []byte
	recvAll    []byte
	flush      []byte
	slots      int
	stride     int
	rng        *rand.Rand
	sendN      int
	recvN      int
	next       int
	sink       byte
	off        int64
}

// NewBuffers allocates buffers of sendBytes and recvBytes, page-aligned:
// NewBuffersAt with page offset 0.
func NewBuffers(mode Mode, sendBytes, recvBytes, slots, flushBytes int, seed uint64) *Buffers {
	return NewBuffersAt(mode, sendBytes, recvBytes, slots, flushBytes, seed, 0)
}

// NewBuffersAt allocates buffers of sendBytes and recvBytes that start
// pageOffset bytes after a page boundary (the buf_offset factor; 0 ≤
// pageOffset, see pageAligned). For Cycle and Random the
// allocation holds slots copies of each, a multiple of 64 bytes apart, so
// that every slot has the first slot's offset from a 64-byte boundary;
// for Cold, flushBytes (PrivateBytes) is the buffer overwritten.
func NewBuffersAt(mode Mode, sendBytes, recvBytes, slots, flushBytes int, seed uint64, pageOffset int) *Buffers {
	b := &Buffers{Mode: mode, sendN: sendBytes, recvN: recvBytes, slots: 1}
	if mode == Cycle || mode == Random {
		b.slots = max(slots, 1)
	}
	b.stride = max(sendBytes, recvBytes)
	b.stride = (b.stride + 63) &^ 63
	if b.stride == 0 {
		b.stride = 64
	}
	b.sendAll = pageAligned(b.stride*b.slots+sendBytes, pageOffset)
	b.recvAll = pageAligned(b.stride*b.slots+recvBytes, pageOffset)
	// Write every page, as OSU and IMB do (they memset their buffers).
	// Fresh memory from the OS is never written by make: until it is,
	// every page of it maps the kernel's one shared zero page, and a send
	// from it reads one physical page over and over. Measured with
	// MPICH 4.0.2 on these VMs, an 8 KiB–64 KiB message sent from such a
	// buffer took 0.8× the time it takes from written memory
	// (bench/fidelity, docs/fidelity.md "How fidelity is measured").
	// 0x01 in every byte is a normal number as float32 and float64, so
	// reductions never meet denormals.
	fillPattern(b.sendAll)
	fillPattern(b.recvAll)
	if mode == Cold {
		b.flush = make([]byte, max(flushBytes, 1))
	}
	b.rng = rand.New(rand.NewPCG(seed, 0x6361636865))
	b.set(0)
	return b
}

func (b *Buffers) set(slot int) {
	off := slot * b.stride
	b.Send = b.sendAll[off : off+b.sendN]
	b.Recv = b.recvAll[off : off+b.recvN]
	b.off = int64(off)
}

// Offset returns the byte offset of the current Send and Recv within the
// allocation.
func (b *Buffers) Offset() int64 { return b.off }

// Plan prepares a batch of len(offs) observations of o to run in one
// mpi.ObserveBatch: for Cycle and Random it fills offs with the
// offsets that len(offs) calls of Before would choose and points o at the
// whole allocations with o.Offsets = offs; for Cold it sets o.Flush.
// Afterwards Send and Recv are the last observation's. Unplan undoes it.
func (b *Buffers) Plan(o *mpi.Observation, offs []int64) {
	switch b.Mode {
	case Cycle, Random:
		for i := range offs {
			b.Before(i)
			offs[i] = b.off
		}
		o.Send, o.Recv, o.Offsets = b.sendAll, b.recvAll, offs
	case Cold:
		clear(offs)
		o.Flush = b.flush
	default:
		clear(offs)
	}
}

// Unplan points o back at the current Send and Recv, without Offsets or
// Flush.
func (b *Buffers) Unplan(o *mpi.Observation) {
	o.Send, o.Recv, o.Offsets, o.Flush = b.Send, b.Recv, nil, nil
}

// Before prepares observation i: a flush for Cold, the next (or a
// random) offset for Cycle (Random). The caller copies Send and
// Recv into the Observation afterwards.
func (b *Buffers) Before(i int) {
	switch b.Mode {
	case Cold:
		v := b.sink + 1
		for j := 0; j < len(b.flush); j += 64 {
			b.flush[j] = v
		}
		b.sink = b.flush[len(b.flush)/2]
	case Cycle:
		b.next = (b.next + 1) % b.slots
		b.set(b.next)
	case Random:
		b.set(b.rng.IntN(b.slots))
	}
}

// FillSend calls fill on the send bytes of every slot, for contents that
// must hold whichever slot an observation uses (the result check's
// pattern, mpi.FillCheck). Call it before the observations.
func (b *Buffers) FillSend(fill func(send []byte)) {
	for s := range b.slots {
		fill(b.sendAll[s*b.stride : s*b.stride+b.sendN])
	}
	b.set(b.next)
}

// fillPattern writes 0x01 to every byte of p.
func fillPattern(p []byte) {
	for i := range p {
		p[i] = 1
	}
}
