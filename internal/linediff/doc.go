// Package linediff describes how two texts differ line by line, for the
// failure messages of tests that compare output with a file (golden runs,
// fixtures written by earlier commits).
package linediff
