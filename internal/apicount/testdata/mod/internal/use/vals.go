package use

import "example.com/mod/vals"

// Y uses vals' types through their values only.
var Y = vals.MakeR().N + vals.NewP().Do() + vals.MakeG(4).Get() + vals.MakeU().N

// Z stores an S without selecting anything on it.
var Z = vals.MakeS()
