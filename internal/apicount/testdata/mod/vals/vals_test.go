package vals_test

import (
	"testing"

	"example.com/mod/vals"
)

func TestOwn(t *testing.T) { _ = vals.MakeO().N }
