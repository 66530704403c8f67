package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tensorcast/tensorcast/internal/npy"
	"github.com/tensorcast/tensorcast/internal/safetensors"
)

func init() {
	register(&command{
		name:    "inspect",
		args:    "FILE...",
		summary: "list the tensors (name, dtype, shape, bytes) and metadata of .safetensors and .npy files",
		run:     runInspect,
	})
}

const inspectHelp = `Lists the tensors of each .safetensors or .npy FILE in an aligned table:
name, dtype (as the file names it, and the ONNX type), shape and bytes, in
the order of their data, then the __metadata__ entries of a .safetensors
file. The format is chosen by the extension, or by the file's first bytes.
The file is validated as convert does: a malformed file is a one-line error
on stderr, and the other files are still listed (exit status 1 if any file
was bad).
`

func runInspect(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 1 && isHelpFlag(args[0]) {
		fmt.Fprintf(stdout, "usage: tensorcast inspect %s\n\n%s", commands["inspect"].args, inspectHelp)
		return errHelp
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return usagef("inspect: no FILE")
	}
	// A bad file is reported on stderr and the others are still listed;
	// the exit status is 1 if any file was bad.
	failed, listed := false, false
	for _, name := range args {
		var b bytes.Buffer
		if err := inspectFile(&b, name); err != nil {
			fmt.Fprintln(stderr, errorLine(err))
			failed = true
			continue
		}
		if listed {
			fmt.Fprintln(stdout)
		}
		listed = true
		if _, err := stdout.Write(b.Bytes()); err != nil {
			return err
		}
	}
	if failed {
		return errReported
	}
	return nil
}

func inspectFile(w io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", name)
	}
	format := formatOf(name)
	if format == formatRaw {
		format = formatSafetensors
		if isNpy(name) {
			format = formatNpy
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch format {
	case formatSafetensors:
		h, err := safetensors.ReadHeader(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(w, "%s: safetensors, %s, %s of data, %d-byte header\n\n",
			name, plural(len(h.Tensors), "tensor"), humanBytes(float64(h.DataSize)), h.HeaderSize)
		fmt.Fprintln(tw, "NAME\tDTYPE\tTYPE\tSHAPE\tBYTES")
		for _, t := range h.Tensors {
			typ := "unknown"
			if t.Known() {
				typ = t.Type.String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", printable(t.Name), printable(t.DType), typ, safetensors.FormatShape(t.Shape), t.Size())
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if h.HasMetadata {
			fmt.Fprintf(w, "\n__metadata__: %s\n", plural(len(h.Metadata), "entry"))
			if len(h.Metadata) > 0 {
				fmt.Fprintln(tw, "KEY\tVALUE")
				for _, m := range h.Metadata {
					fmt.Fprintf(tw, "%s\t%s\n", printable(m.Key), printable(m.Value))
				}
			}
		}
	case formatNpy:
		h, err := npy.ReadHeader(f, st.Size())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		order := "C order"
		if h.FortranOrder {
			order = "Fortran order"
		}
		fmt.Fprintf(w, "%s: npy %d.%d, %s, %d-byte header\n\n", name, h.Major, h.Minor, order, h.DataOffset)
		fmt.Fprintln(tw, "NAME\tDTYPE\tTYPE\tSHAPE\tBYTES")
		fmt.Fprintf(tw, "-\t%s\t%v\t%s\t%d\n", h.Descr, h.Type, npy.FormatShape(h.Shape), h.DataSize())
	}
	return tw.Flush()
}

// printable quotes s when it holds characters that would break the table.
func printable(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || !strconv.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}
