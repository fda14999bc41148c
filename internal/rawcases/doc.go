// Package rawcases holds the raw-data inputs that the tests of several
// packages share. It lists the raw-data rows that the reader (package
// analysis) refuses, one case each, so that both sides are tested against
// one list: analysis checks that its reader refuses every case, and
// rawdata checks that its Writer refuses every value it can be given, or
// can never write the refused spelling. Every refusal of the reader then
// has a twin in the writer, and a case added here is checked on both
// sides. ModesCSV is a valid file with two modes, for the tests of mode
// detection in analysis, report and the CLI.
package rawcases
