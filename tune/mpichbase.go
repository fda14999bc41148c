package tune

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// mpirAlgorithmKey matches an algorithm leaf of a selection tree and
// captures the function's prefix (MPIR_ at the MPIR level, MPIDI_ at the
// device levels).
var mpirAlgorithmKey = regexp.MustCompile(`"algorithm=([A-Z]+)_`)

// mpichBaseFromLibrary returns the MPIR-level collective selection JSON
// that the MPICH library file at path carries compiled in (the selection
// MPICH uses when MPICHTuningCvar is not set): the NUL-terminated JSON
// object among the file's strings that begins with a "collective=" key
// and whose every algorithm leaf is an MPIR_ function. MPICH 4.0's
// library also holds the CH4 and POSIX levels' selections, whose leaves
// are MPIDI_ functions or compositions; those are not it. It fails when
// the file cannot be read or holds no such object.
func mpichBaseFromLibrary(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tune: MPICH base selection: %w", err)
	}
	start := []byte(`{"collective=`)
	for off := 0; ; {
		i := bytes.Index(b[off:], start)
		if i < 0 {
			break
		}
		i += off
		end := bytes.IndexByte(b[i:], 0)
		if end < 0 {
			break
		}
		s := b[i : i+end]
		off = i + end
		if !json.Valid(s) {
			continue
		}
		leaves := mpirAlgorithmKey.FindAllSubmatch(s, -1)
		mpir := len(leaves) > 0
		for _, m := range leaves {
			mpir = mpir && string(m[1]) == "MPIR"
		}
		if mpir {
			return bytes.Clone(s), nil
		}
	}
	return nil, fmt.Errorf("tune: MPICH base selection: %s holds no MPIR-level selection JSON (give the library's own, maint/tuning/coll/mpir/generic.json of its release)", path)
}

// mpichLibraryPath returns the path of the installed MPICH library, the
// file whose compiled-in selection mpichBaseFromLibrary reads: libmpich.so
// in the directory that pkg-config's module "mpich" names (libdir), with
// its symbolic links resolved. It fails when pkg-config or the file is
// missing.
func mpichLibraryPath() (string, error) {
	out, err := exec.Command("pkg-config", "--variable=libdir", "mpich").Output()
	if err != nil {
		return "", fmt.Errorf("tune: the MPICH library: pkg-config mpich: %w", err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("tune: the MPICH library: pkg-config mpich names no libdir")
	}
	p, err := filepath.EvalSymlinks(filepath.Join(dir, "libmpich.so"))
	if err != nil {
		return "", fmt.Errorf("tune: the MPICH library: %w", err)
	}
	return p, nil
}

// InstalledMPICHBase returns the MPIR-level selection compiled into the
// installed MPICH library (mpichLibraryPath, mpichBaseFromLibrary) and the
// file it came from.
func InstalledMPICHBase() ([]byte, string, error) {
	p, err := mpichLibraryPath()
	if err != nil {
		return nil, "", err
	}
	b, err := mpichBaseFromLibrary(p)
	return b, p, err
}
