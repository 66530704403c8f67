package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/tensorcast/tensorcast"
)

func init() {
	register(&command{
		name:    "types",
		summary: "list every ONNX element type: number, bit size, range, first Cast opset",
		run: func(args []string, _ io.Reader, stdout, _ io.Writer) error {
			if err := noArgs("types", args, stdout); err != nil {
				return err
			}
			return printTypes(stdout)
		},
	})
}

// printTypes writes the table of tensorcast.AllTypes.
func printTypes(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tNUMBER\tBITS\tOPSET\tRANGE")
	for _, t := range tensorcast.AllTypes() {
		bits, opset := "-", "-"
		if b := t.BitSize(); b > 0 {
			bits = strconv.Itoa(b)
		}
		if o := t.Opset(); o > 0 {
			opset = strconv.Itoa(o)
		}
		fmt.Fprintf(tw, "%v\t%d\t%s\t%s\t%s\n", t, int(t), bits, opset, t.Range())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nOPSET is the first Cast opset that accepts the type; BITS is the storage size of one element (STRING: variable).")
	return err
}
