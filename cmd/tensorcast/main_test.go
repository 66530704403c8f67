package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// runCmd runs the command line in-process and returns its exit status and output.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = run(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, out, _ := runCmd(t, nil, args...)
		if code != 0 {
			t.Errorf("%q: exit %d, want 0", args, code)
		}
		for _, c := range []string{"convert", "types", "cpu", "demo", "help"} {
			if !strings.Contains(out, "tensorcast "+c) {
				t.Errorf("%q: usage does not list %q:\n%s", args, c, out)
			}
		}
	}
	// No arguments: usage on stderr, exit 2.
	code, out, errOut := runCmd(t, nil)
	if code != 2 || out != "" || !strings.Contains(errOut, "tensorcast convert") {
		t.Errorf("no args: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestUnknownSubcommand(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "frobnicate")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if out != "" || !strings.HasPrefix(errOut, `tensorcast: unknown subcommand "frobnicate"`) || !strings.Contains(errOut, "usage:") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	code, _, errOut = runCmd(t, nil, "help", "frobnicate")
	if code != 2 || !strings.Contains(errOut, "unknown subcommand") {
		t.Errorf("help frobnicate: exit %d, stderr %q", code, errOut)
	}
}

func TestHelpForCommand(t *testing.T) {
	code, out, _ := runCmd(t, nil, "help", "convert")
	if code != 0 || !strings.Contains(out, "-round-mode") || !strings.Contains(out, "-no-saturate") {
		t.Errorf("help convert: exit %d:\n%s", code, out)
	}
	code, out, _ = runCmd(t, nil, "demo", "-h")
	if code != 0 || !strings.HasPrefix(out, "usage: tensorcast demo") {
		t.Errorf("demo -h: exit %d:\n%s", code, out)
	}
	code, _, errOut := runCmd(t, nil, "types", "extra")
	if code != 2 || !strings.Contains(errOut, "takes no arguments") {
		t.Errorf("types extra: exit %d, stderr %q", code, errOut)
	}
}
