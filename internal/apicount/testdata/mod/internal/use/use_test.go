package use

import (
	"testing"

	"example.com/mod/lib"
)

func TestUse(t *testing.T) { _ = lib.Tested() + lib.T{}.Tested }
