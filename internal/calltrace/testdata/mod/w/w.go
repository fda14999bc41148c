// Package w is the writer of calltrace's test module.
package w

// Writer writes rows.
type Writer struct{ n int }

// Row writes one row.
func (w *Writer) Row() { w.n++ }

// Check checks.
func Check() {}
