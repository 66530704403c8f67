// Command tensorcast converts .safetensors and .npy files and raw ONNX
// tensors between element types, and shows what the tensorcast library does
// on this machine.
//
// Usage:
//
//	tensorcast convert -to T [-only GLOB] [-skip GLOB] [-no-saturate] [-round-mode M] [-quiet] IN.safetensors OUT.safetensors
//	tensorcast convert -to T [-no-saturate] [-round-mode M] [-quiet] IN.npy OUT.npy
//	tensorcast convert -from T -to T [-no-saturate] [-round-mode up|down|nearest] [IN [OUT]]
//	tensorcast inspect FILE...
//	tensorcast types
//	tensorcast cpu
//	tensorcast demo
//	tensorcast help
//
// Run `tensorcast help` for details. Each subcommand lives in its own file and
// registers itself with register; its logic takes its arguments and streams
// as parameters, so tests run it in-process.
package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// command is one subcommand.
type command struct {
	name    string
	args    string // argument synopsis for the usage text
	summary string // one line
	// run executes the subcommand. args excludes the subcommand name.
	run func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands holds the registered subcommands by name.
var commands = map[string]*command{}

// commandOrder is the order of the usage listing; commands registered but not
// named here are listed after these, alphabetically.
var commandOrder = []string{"convert", "inspect", "types", "cpu", "demo"}

// register adds a subcommand; each subcommand file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("tensorcast: subcommand registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line args (without the program name) and returns
// the exit status: 0 on success, 1 on a failure, 2 on a usage error.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if _, ok := commands[args[1]]; ok {
				return run([]string{args[1], "-h"}, stdin, stdout, stderr)
			}
			fmt.Fprintf(stderr, "tensorcast: unknown subcommand %q\n\n", args[1])
			printUsage(stderr)
			return 2
		}
		printUsage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tensorcast: unknown subcommand %q\n\n", args[0])
		printUsage(stderr)
		return 2
	}
	err := c.run(args[1:], stdin, stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	if errors.Is(err, errReported) {
		return 1
	}
	fmt.Fprintln(stderr, errorLine(err))
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, strings.TrimSpace("usage: tensorcast "+c.name+" "+c.args))
		return 2
	}
	return 1
}

// errHelp is returned by a subcommand that printed its help on request.
var errHelp = errors.New("help requested")

// errReported is returned by a subcommand that has printed its errors
// itself (and went on after them): exit status 1, nothing more printed.
var errReported = errors.New("errors reported")

// errorLine renders err as the single stderr line "tensorcast: ...". Library
// errors already carry the prefix; it is not repeated.
func errorLine(err error) string {
	msg := strings.TrimPrefix(err.Error(), "tensorcast: ")
	msg = strings.ReplaceAll(msg, "\n", " ")
	return "tensorcast: " + msg
}

// noArgs handles the arguments of a command that takes none: "-h" prints its
// help and returns errHelp; anything else is a usage error.
func noArgs(name string, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return nil
	}
	if len(args) == 1 && isHelpFlag(args[0]) {
		c := commands[name]
		fmt.Fprintf(stdout, "usage: tensorcast %s\n\n%s\n", name, c.summary)
		return errHelp
	}
	return usagef("%s: takes no arguments", name)
}

func isHelpFlag(s string) bool {
	switch s {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `tensorcast converts tensors between ONNX element types, exactly as ONNX Cast does.

usage: tensorcast <command> [arguments]

commands:
`)
	names := slices.Collect(maps.Keys(commands))
	slices.SortFunc(names, func(a, b string) int {
		ia, ib := slices.Index(commandOrder, a), slices.Index(commandOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace("tensorcast "+c.name+" "+c.args))
		fmt.Fprintf(w, "        %s\n", c.summary)
	}
	fmt.Fprint(w, `  tensorcast help [command]
        this text, or the details of one command

Type names are ONNX's (FLOAT, FLOAT16, BFLOAT16, FLOAT8E4M3FN, INT4, ...), any
case, their enum numbers (10), or common aliases (fp16, bf16, f32).
`)
}
