package main

import (
	"flag"
	"slices"
	"strings"
)

// parseFlagsAnywhere parses args like parseFlags but also takes the flags
// that follow file names ("analyze a.csv --format json"): without it the
// flag package stops at the first file and "--format" was opened as a
// file. "--" stays a positional argument (compare and plot
// separate data sets A and B with it), and so does "-" (stdin); a file
// whose name starts with "-" is given as ./-name. Afterwards fs.Args() holds
// the positional arguments in their order.
func parseFlagsAnywhere(fs *flag.FlagSet, args []string) error {
	var pos []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		// Parse up to the next "--", which the flag package would
		// otherwise swallow as its end-of-flags marker; it stops at the
		// first positional argument.
		end := len(args)
		if i := slices.Index(args, "--"); i >= 0 {
			end = i
		}
		if err := parseFlags(fs, args[:end]); err != nil {
			return err
		}
		args = append(fs.Args(), args[end:]...)
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
