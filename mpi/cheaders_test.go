//go:build cgo && !nompi

package mpi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCHeadersCompile compiles every C header of the binding on its own
// (cc -fsyntax-only -Werror=implicit-function-declaration), with the MPI
// this build links: a header that leans on a type, a function or a
// system header it does not include itself fails here, so no header needs
// another to be included first (TestCHeaders checks the include graph). A
// variable computed and never used fails too: rb_observe's barrier flag
// was one, and every OSU ping-pong round trip got a barrier after it.
func TestCHeadersCompile(t *testing.T) {
	module := "mpi"
	if BuildFlavor == "mpich" {
		module = "mpich"
	}
	cflags, err := exec.Command("pkg-config", "--cflags", module).Output()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, lerr := exec.LookPath(cc); err != nil || lerr != nil {
		if os.Getenv("RB_REQUIRE_MPI") != "" {
			t.Fatalf("need %s and pkg-config %s: %v %v", cc, module, err, lerr)
		}
		t.Skipf("no %s or pkg-config %s: %v %v", cc, module, err, lerr)
	}
	files, _ := filepath.Glob("*.h")
	for _, f := range files {
		args := append(strings.Fields(string(cflags)), "-fsyntax-only", "-Werror=implicit-function-declaration",
			"-Werror=implicit-int", "-Werror=unused-variable", "-Werror=unused-but-set-variable", "-I.", "-x", "c", f)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Errorf("%s does not compile on its own: %v\n%s", f, err, out)
		}
	}
}
