package clocksync

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// The exact truth across namespaced nodes. Processes of one running kernel
// read one hardware clock, whatever namespaces they are in: a time namespace
// only adds a constant offset to CLOCK_MONOTONIC (time_namespaces(7)), which
// each process reads from /proc/self/timens_offsets. So on a virtual cluster
// of namespaced nodes (internal/vcluster), where every node has its own
// CLOCK_MONOTONIC offset and its own skew, the true offset between any two
// ranks is still known exactly: the host's CLOCK_MONOTONIC is the rank's own
// reading minus its namespace's offset. Real nodes of a real cluster run
// different kernels (different boot ids) and get no truth.

// NodeSkewEnv names the environment variable that gives every process of a
// node the drift of that node's clock, in parts per million (positive runs
// fast), applied with timing.Skewed on top of the raw clock by NodeSkew. The
// virtual cluster sets it per node; on a real cluster it is unset.
const NodeSkewEnv = "RB_NODE_SKEW_PPM"

// TimeNamespaceOffset returns the CLOCK_MONOTONIC offset of the calling
// process's time namespace, from /proc/self/timens_offsets: what its
// CLOCK_MONOTONIC reads ahead of the host's. It is 0 in the initial time
// namespace and on kernels without time namespaces (no such file).
func TimeNamespaceOffset() (time.Duration, error) {
	f, err := os.Open("/proc/self/timens_offsets")
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseTimensOffsets(f)
}

// parseTimensOffsets reads the monotonic line of a timens_offsets file
// ("monotonic <seconds> <nanoseconds>").
func parseTimensOffsets(f io.Reader) (time.Duration, error) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] != "monotonic" {
			continue
		}
		s, err1 := strconv.ParseInt(fields[1], 10, 64)
		ns, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("clocksync: bad line %q in /proc/self/timens_offsets", sc.Text())
		}
		return time.Duration(s)*time.Second + time.Duration(ns), nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("clocksync: no monotonic line in /proc/self/timens_offsets")
}

// bootID returns the kernel's boot id (/proc/sys/kernel/random/boot_id): the
// same for every process of one running kernel, in any namespace, and
// different on another machine or after a reboot.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// NodeSkew wraps clk in a timing.Skewed with the drift that the environment
// variable NodeSkewEnv gives this node; it returns clk and nil when the
// variable is unset or empty, and an error when it is not a number.
func NodeSkew(clk timing.Clock) (timing.Clock, *timing.Skewed, error) {
	v := strings.TrimSpace(os.Getenv(NodeSkewEnv))
	if v == "" {
		return clk, nil, nil
	}
	ppm, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, nil, fmt.Errorf("clocksync: %s=%q: not a number of ppm", NodeSkewEnv, v)
	}
	s := timing.NewSkewed(clk, 0, ppm)
	return s, s, nil
}

// ShareHostClock sets h.SharedNow and h.LocalAtShared when every rank of c
// runs on one kernel (equal BootID), in whatever network, UTS or time
// namespaces, and reads mono, possibly skewed: skews are applied to mono's
// reading in order (the innermost first, e.g. a NodeSkew and then a rank's
// own timing.Skewed; nil entries are skipped). The shared clock is the
// host's CLOCK_MONOTONIC in nanoseconds: this process's reading minus its
// time namespace's offset. It reports whether it set them and leaves h
// unchanged otherwise. Collective: every rank of c calls it.
func (h *Harness) ShareHostClock(c mpi.Comm, mono *timing.Monotonic, skews ...*timing.Skewed) (bool, error) {
	hf := readHostFacts()
	id, off := hf.bootID, hf.timens
	if hf.bootErr != nil || hf.timensErr != nil {
		id = "" // unknown: no truth, but every rank still joins the collective
	}
	same, err := mpi.AllEqual(c, id)
	if err != nil {
		return false, err
	}
	ok := 0.0
	if same && id != "" {
		ok = 1
	}
	all := []float64{0}
	if err := mpi.Allreduce(c, []float64{ok}, all, mpi.Min); err != nil {
		return false, err
	}
	if all[0] != 1 {
		return false, nil
	}
	epoch := mono.Source().Epoch - off.Nanoseconds() // host ns at mono's zero
	h.SharedNow = func() timing.Ticks { return mono.Now() + timing.Ticks(epoch) }
	h.LocalAtShared = func(host timing.Ticks) timing.Ticks {
		t := host - timing.Ticks(epoch)
		for _, s := range skews {
			if s != nil {
				t = s.Skew(t)
			}
		}
		return t
	}
	return true, nil
}
