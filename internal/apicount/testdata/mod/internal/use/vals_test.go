package use

import (
	"testing"

	"example.com/mod/vals"
)

func TestVals(t *testing.T) { _ = vals.MakeQ().N }
