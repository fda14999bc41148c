// Package srcload type-checks a module's packages from source for the
// repository's measuring programs (internal/apicount, internal/calltrace).
//
// The model: `go list -json -deps -export -compiled` names every package
// of the build, with the files the compiler sees (cgo already translated)
// and the compiler's export data. Load type-checks the module's own
// packages from those files, so that every identifier resolves
// (types.Info), and imports everything else, including the module's other
// packages, from export data. Objects from two separately checked packages
// are therefore distinct values; compare them by Key, not by identity.
package srcload
