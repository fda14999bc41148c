// Package units parses the byte quantities that message sizes, cache sizes
// and buffer sizes are written in, so that every command and package reads
// "32K" the same way.
package units
