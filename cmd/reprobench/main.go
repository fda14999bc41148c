// Command reprobench runs reproducible, statistically sound MPI
// micro-benchmarks and analyzes their results.
//
// Run "reprobench help" for the list of subcommands and "reprobench help CMD"
// (or "reprobench CMD -h") for the flags of one.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand. Each lives in its own file and registers itself
// from an init function, so subcommands can be added independently.
type command struct {
	name    string
	summary string // one line for "reprobench help"
	run     func(stdout, stderr io.Writer, args []string) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("reprobench: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage reports bad command-line input; main exits with status 2 for it.
var errUsage = errors.New("usage error")

// exitStatusError ends the command with its own exit status after its
// output was written (compare --fail-if-slower: 3 regression, 4 cannot
// decide); 1 and 2 keep meaning error and usage.
type exitStatusError struct {
	status int
	msg    string
}

func (e *exitStatusError) Error() string { return e.msg }

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	var es *exitStatusError
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, &es):
		fmt.Fprintln(os.Stderr, message(err))
		os.Exit(es.status)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, message(err))
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, message(err))
		os.Exit(1)
	}
}

// message is the line main prints for err: "reprobench: " and the error,
// with the library's own "reprobench: " prefix, which a command's error
// wraps, said once.
func message(err error) string {
	return "reprobench: " + strings.ReplaceAll(err.Error(), ": reprobench: ", ": ")
}

func run(stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(stdout, stderr, []string{"-h"})
			}
		}
		usage(stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
	return c.run(stdout, stderr, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "reprobench: reproducible MPI micro-benchmarking")
	fmt.Fprintln(w, "\nUsage: reprobench COMMAND [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun \"reprobench COMMAND -h\" for the flags of a command.")
}

// newFlagSet returns a FlagSet that prints its usage with the command's
// summary to stderr and returns errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: reprobench %s %s\n\n", name, synopsis)
		if c, ok := commands[name]; ok {
			fmt.Fprintln(stderr, strings.TrimSpace(c.summary))
			fmt.Fprintln(stderr)
		}
		printDefaults(fs, stderr)
	}
	return fs
}

// removedPrefix starts the usage of a flag that was removed or renamed: it
// still parses, to refuse with its pointer, but the help does not list it.
const removedPrefix = "removed:"

// printDefaults is fs.PrintDefaults without the flags whose usage starts
// with removedPrefix.
func printDefaults(fs *flag.FlagSet, w io.Writer) {
	shown := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	shown.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, removedPrefix) {
			return
		}
		shown.Var(f.Value, f.Name, f.Usage)
		shown.Lookup(f.Name).DefValue = f.DefValue
	})
	shown.PrintDefaults()
}

// parseFlags parses args and maps flag errors to errUsage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
