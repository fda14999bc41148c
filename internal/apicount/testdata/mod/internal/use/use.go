// Package use names lib's names from outside.
package use

import "example.com/mod/lib"

// X names lib.Used and T.Used.
var X = lib.Used() + lib.T{}.Used
