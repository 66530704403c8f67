package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tensorcast/tensorcast"
)

func init() {
	register(&command{
		name:    "types",
		summary: "list every ONNX element type: number, bit size, range, first Cast opset; and their names",
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
	if _, err := fmt.Fprintln(w, "\nOPSET is the first Cast opset that accepts the type; BITS is the storage size of one element (STRING: variable)."); err != nil {
		return err
	}
	return printTypeNames(w)
}

// printTypeNames writes tensorcast.TypeNames, the names -from and -to
// accept, one row per type, and the spellings refused as ambiguous.
func printTypeNames(w io.Writer) error {
	fmt.Fprintln(w, "\nNAMES (-from, -to and tensorcast.ParseDataType read these; in any case, except that only the")
	fmt.Fprintln(w, "capitals FLOAT, I8 and U8 parse: other spellings of them are ambiguous)")
	fmt.Fprintln(w)
	names := tensorcast.TypeNames()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tONNX\tSAFETENSORS\tNUMPY\tOTHER")
	for _, t := range tensorcast.AllTypes() {
		cols := map[string][]string{}
		for _, n := range names {
			if n.Type == t && len(n.Candidates) == 0 && !(n.Source == "ONNX" && n.Name == t.String()) {
				cols[n.Source] = append(cols[n.Source], n.Name)
			}
		}
		fmt.Fprintf(tw, "%v", t)
		for _, src := range []string{"ONNX", "safetensors", "numpy", "other"} {
			c := strings.Join(cols[src], " ")
			if c == "" {
				c = "-"
			}
			fmt.Fprintf(tw, "\t%s", c)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nAMBIGUOUS (refused, in any case)")
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range names {
		if len(n.Candidates) > 0 {
			fmt.Fprintf(tw, "%s\t%s\n", n.Name, n.Hint)
		}
	}
	return tw.Flush()
}
