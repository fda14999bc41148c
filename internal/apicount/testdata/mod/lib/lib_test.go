package lib_test

import (
	"testing"

	"example.com/mod/lib"
)

func TestOwn(t *testing.T) { _ = lib.Unused(); _ = lib.T{Unused: 1} }
