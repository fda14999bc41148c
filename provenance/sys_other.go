//go:build !linux

package provenance

func affinity() string { return unavailable("affinity masks are read on Linux only") }

func readAdjtimex() Adjtimex {
	return Adjtimex{State: unavailable("adjtimex is read on Linux only")}
}
