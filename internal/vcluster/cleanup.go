package vcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// idPattern matches a cluster id and captures its owner's pid.
var idPattern = regexp.MustCompile(`^` + Prefix + `([0-9]+)-([0-9]+)$`)

// nsFiles returns the namespace files of cluster id: its network namespaces
// under /run/netns and the UTS and time namespace files in its directory.
func nsFiles(id string) (netns, others []string) {
	ents, _ := os.ReadDir("/run/netns")
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), id+"-") {
			netns = append(netns, filepath.Join("/run/netns", e.Name()))
		}
	}
	for _, pat := range []string{"*.uts", "*.time"} {
		m, _ := filepath.Glob(filepath.Join(RunDir, id, pat))
		others = append(others, m...)
	}
	return netns, others
}

// nsInode returns the inode of a namespace file (bind-mounted nsfs), 0 if
// it is not one.
func nsInode(path string) uint64 {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0
	}
	return st.Ino
}

// procsIn returns the pids of processes in any of the namespaces (inodes).
func procsIn(inodes map[uint64]bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, ns := range []string{"net", "uts", "time"} {
			if inodes[nsInode(filepath.Join("/proc", e.Name(), "ns", ns))] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// removeCluster kills the processes in cluster id's namespaces, deletes its
// namespaces, unmounts and removes its directory.
func removeCluster(id string) error {
	netns, others := nsFiles(id)
	inodes := map[uint64]bool{}
	for _, f := range append(append([]string{}, netns...), others...) {
		if ino := nsInode(f); ino != 0 {
			inodes[ino] = true
		}
	}
	var errs []error
	if len(inodes) > 0 {
		deadline := time.Now().Add(10 * time.Second)
		for {
			pids := procsIn(inodes)
			if len(pids) == 0 {
				break
			}
			if time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("vcluster: processes %v in %s survive SIGKILL", pids, id))
				break
			}
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for _, f := range netns {
		if err := run("ip", "netns", "delete", filepath.Base(f)); err != nil {
			errs = append(errs, err)
		}
	}
	dir := filepath.Join(RunDir, id)
	for _, f := range others {
		if err := syscall.Unmount(f, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			errs = append(errs, fmt.Errorf("vcluster: umount %s: %w", f, err))
		}
	}
	if _, err := os.Stat(dir); err == nil {
		// The private bind mount of the directory itself (EINVAL: none).
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			errs = append(errs, fmt.Errorf("vcluster: umount %s: %w", dir, err))
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Leftovers returns the ids of clusters that have anything left on this
// machine (namespaces or directories), whether or not their owner lives.
func Leftovers() []string {
	seen := map[string]bool{}
	var ids []string
	add := func(name string) {
		// Names are ID or ID-suffix; the ID is Prefix<pid>-<counter>.
		parts := strings.SplitN(name, "-", 3)
		if len(parts) < 2 {
			return
		}
		id := parts[0] + "-" + parts[1]
		if idPattern.MatchString(id) && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, d := range []string{"/run/netns", RunDir} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			add(e.Name())
		}
	}
	return ids
}

// Clean removes every cluster whose owner process is gone (a crashed or
// killed run) and returns the ids it removed. With all it also removes
// clusters whose owner still runs. It touches only names that start with
// Prefix and match a cluster id.
func Clean(all bool) ([]string, error) {
	var removed []string
	var errs []error
	for _, id := range Leftovers() {
		m := idPattern.FindStringSubmatch(id)
		pid, _ := strconv.Atoi(m[1])
		if !all && alive(pid) {
			continue
		}
		if err := removeCluster(id); err != nil {
			errs = append(errs, err)
		}
		removed = append(removed, id)
	}
	return removed, errors.Join(errs...)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
