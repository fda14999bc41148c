// Package cregion carries the records of the C API's recorder (package
// capi, whose Begin and End run in C) into package region's Close path,
// without widening region's exported API. Package region sets the hooks
// at its initialization.
package cregion
