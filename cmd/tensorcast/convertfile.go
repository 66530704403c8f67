package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/npy"
	"github.com/tensorcast/tensorcast/internal/safetensors"
)

// A file conversion is planned from the input's header, then executed in
// one sequential pass: the output header, then each tensor's data, read in
// chunks of whole elements through buffers allocated once.
//
// The input is read with ReadAt (pread) into those buffers rather than
// memory-mapped: the pages of a mapping that have been touched count in the
// process's resident set until unmapped, so a mapped multi-GiB input would
// show a multi-GiB RSS, while chunked reads keep it at a few MiB on every
// system, at the cost of one copy from the page cache.

// segment is one tensor's data: copied as is, or converted.
type segment struct {
	name     string
	off      int64 // file offset of the input data
	size     int64 // input bytes
	n        int64 // elements
	from, to tensorcast.DataType
	convert  bool
	swap     int // byte-swap elements of this size before converting (big-endian input)
}

// plan is a planned file conversion.
type plan struct {
	header    []byte // the output up to its first data byte
	segs      []segment
	inSize    int64 // the input file's size
	outSize   int64
	converted int // tensors whose type (or byte order) changes
	copied    int // tensors copied unchanged (the sum of the counts below)
	// Why tensors were copied unchanged, for the summary line.
	same                        int // already of the target type
	normalized                  int // BOOL to BOOL: bytes normalised to 0 and 1, as Cast does
	notFloat                    int // not a floating-point type (dtypes in notFloatTypes)
	unselected                  int // not matched by -only
	skipped                     int // matched by -skip
	unknown                     int // a dtype tensorcast does not know (in unknownTypes)
	notFloatTypes, unknownTypes []string
	unit                        string
	warnings                    []string
}

// byteSize is the storage of n elements of t, as int64 (t.Size takes int).
func byteSize(t tensorcast.DataType, n int64) int64 {
	return (n*int64(t.BitSize()) + 7) / 8
}

// planSafetensors plans the conversion of a safetensors file.
func planSafetensors(h *safetensors.Header, size int64, c *convertConfig) (*plan, error) {
	p := &plan{inSize: size, unit: "tensor"}
	out := make([]safetensors.Tensor, len(h.Tensors))
	onlyHits := make([]int, len(c.only))
	skipHits := make([]int, len(c.skip))
	unknown := map[string][]string{}
	var unknownOrder, notFloat []string
	var off int64
	for i, t := range h.Tensors {
		only := len(c.only) == 0
		for j, g := range c.only {
			if ok, _ := path.Match(g, t.Name); ok {
				onlyHits[j]++
				only = true
			}
		}
		skip := false
		for j, g := range c.skip {
			if ok, _ := path.Match(g, t.Name); ok {
				skipHits[j]++
				skip = true
			}
		}
		if !t.Known() {
			if _, ok := unknown[t.DType]; !ok {
				unknownOrder = append(unknownOrder, t.DType)
			}
			unknown[t.DType] = append(unknown[t.DType], t.Name)
		} else if len(c.only) > 0 && only && !t.Type.IsFloat() {
			notFloat = append(notFloat, t.Name)
		}
		s := segment{name: t.Name, off: h.DataOffset + t.Begin, size: t.Size()}
		o := t
		if t.Known() && t.Type.IsFloat() && only && !skip && t.Type != c.to {
			s.convert, s.from, s.to, s.n = true, t.Type, c.to, t.Elements()
			o.DType, o.Type = c.toName, c.to
			o.End = off + byteSize(c.to, s.n)
			p.converted++
		} else {
			o.End = off + t.Size()
			p.copied++
			switch {
			case !t.Known():
				p.unknown++
				p.unknownTypes = appendNew(p.unknownTypes, t.DType)
			case !t.Type.IsFloat():
				p.notFloat++
				p.notFloatTypes = appendNew(p.notFloatTypes, t.DType)
			case !only:
				p.unselected++
			case skip:
				p.skipped++
			default:
				p.same++
			}
		}
		o.Begin = off
		off = o.End
		out[i] = o
		p.segs = append(p.segs, s)
	}
	hdr, err := safetensors.Encode(out, h.Metadata, h.HasMetadata)
	if err != nil {
		return nil, err
	}
	p.header = hdr
	p.outSize = int64(len(hdr)) + off

	for _, d := range unknownOrder {
		names := unknown[d]
		p.warnings = append(p.warnings, fmt.Sprintf("%s of dtype %q, unknown to tensorcast, copied unchanged", countNames(names, "tensor"), d))
	}
	if len(notFloat) > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("-only matches %s that are not floating-point: copied unchanged", countNames(notFloat, "tensor")))
	}
	for j, g := range c.only {
		if onlyHits[j] == 0 {
			p.warnings = append(p.warnings, fmt.Sprintf("-only %q matches no tensor", g))
		}
	}
	for j, g := range c.skip {
		if skipHits[j] == 0 {
			p.warnings = append(p.warnings, fmt.Sprintf("-skip %q matches no tensor", g))
		}
	}
	return p, nil
}

// countNames renders "3 tensors (a, b, c)" with at most a few names.
func countNames(names []string, unit string) string {
	shown := names
	if len(shown) > 3 {
		shown = shown[:3]
	}
	q := make([]string, len(shown))
	for i, n := range shown {
		q[i] = fmt.Sprintf("%q", n)
	}
	more := ""
	if len(names) > len(shown) {
		more = ", ..."
	}
	return fmt.Sprintf("%s (%s%s)", plural(len(names), unit), strings.Join(q, ", "), more)
}

func plural(n int, unit string) string {
	switch {
	case n == 1:
		return "1 " + unit
	case strings.HasSuffix(unit, "y"):
		return fmt.Sprintf("%d %sies", n, unit[:len(unit)-1])
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// planNpy plans the conversion of a .npy file.
func planNpy(h *npy.Header, size int64, c *convertConfig) *plan {
	p := &plan{inSize: size, unit: "array"}
	n := h.Elements()
	s := segment{name: "array", off: h.DataOffset, size: h.DataSize(), n: n, from: h.Type, to: c.to, convert: true}
	if h.BigEndian {
		s.swap = h.Type.BitSize() / 8
	}
	switch {
	case h.Type == tensorcast.Bool && c.to == tensorcast.Bool:
		// Converted BOOL to BOOL: bytes other than 0 become 1, as Cast
		// does (numpy writes only 0 and 1; other bytes come from elsewhere).
		p.copied++
		p.normalized++
	case h.Type == c.to && !h.BigEndian:
		s.convert = false
		p.copied++
		p.same++
	default:
		p.converted++
	}
	p.header = npy.Encode(c.toName, h.FortranOrder, h.Shape)
	p.segs = []segment{s}
	p.outSize = int64(len(p.header)) + byteSize(c.to, n)
	return p
}

// execute writes the output of p to w, reading the input through r.
// progress, when not nil, is told the input bytes done.
func (p *plan) execute(r io.ReaderAt, w io.Writer, opt tensorcast.Options, progress func(int64)) error {
	if progress == nil {
		progress = func(int64) {}
	}
	// Buffers: the largest chunk any segment needs, allocated once.
	inCap, outCap := chunkBytes, 0
	for _, s := range p.segs {
		if s.convert {
			ce := chunkElems(s.from, s.to)
			inCap = max(inCap, s.from.Size(ce))
			outCap = max(outCap, s.to.Size(ce))
		}
	}
	in, out := make([]byte, inCap), make([]byte, outCap)
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(p.header); err != nil {
		return err
	}
	if len(p.segs) > 0 {
		progress(p.segs[0].off)
	}
	read := func(s *segment, buf []byte, at int64) error {
		if _, err := r.ReadAt(buf, s.off+at); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("reading %s %q at byte %d: %v (did the file change?)", p.unit, s.name, s.off+at, err)
		}
		progress(int64(len(buf)))
		return nil
	}
	for i := range p.segs {
		s := &p.segs[i]
		if !s.convert {
			for done := int64(0); done < s.size; {
				k := min(s.size-done, int64(len(in)))
				if err := read(s, in[:k], done); err != nil {
					return err
				}
				if _, err := bw.Write(in[:k]); err != nil {
					return err
				}
				done += k
			}
			continue
		}
		ce := int64(chunkElems(s.from, s.to))
		for done := int64(0); done < s.n; {
			k := min(s.n-done, ce)
			src, dst := in[:s.from.Size(int(k))], out[:s.to.Size(int(k))]
			if err := read(s, src, byteSize(s.from, done)); err != nil {
				return err
			}
			if s.swap > 1 {
				swapBytes(src, s.swap)
			}
			if err := tensorcast.Cast(dst, s.to, src, s.from, int(k), opt); err != nil {
				return fmt.Errorf("%s %q: %v", p.unit, s.name, err)
			}
			if _, err := bw.Write(dst); err != nil {
				return err
			}
			done += k
		}
	}
	return bw.Flush()
}

// swapBytes reverses the bytes of each size-byte element of b.
func swapBytes(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		e := b[i : i+size]
		for j, k := 0, size-1; j < k; j, k = j+1, k-1 {
			e[j], e[k] = e[k], e[j]
		}
	}
}

// runConvertFile converts a .safetensors or .npy file.
func runConvertFile(c *convertConfig, stdout, stderr io.Writer) error {
	f, err := os.Open(c.in)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", c.in)
	}
	size := st.Size()
	var o *output
	if c.out != "-" {
		if o, err = openOutput(c.out, c.in, st, c.inPlace); err != nil {
			return err
		}
	}
	var p *plan
	switch c.format {
	case formatSafetensors:
		h, err := safetensors.ReadHeader(f, size)
		if err != nil {
			return fmt.Errorf("%s: %w", c.in, err)
		}
		if p, err = planSafetensors(h, size, c); err != nil {
			return fmt.Errorf("%s: %w", c.in, err)
		}
	case formatNpy:
		h, err := npy.ReadHeader(f, size)
		if err != nil {
			return fmt.Errorf("%s: %w", c.in, err)
		}
		p = planNpy(h, size, c)
	}
	if !c.quiet {
		for _, w := range p.warnings {
			fmt.Fprintf(stderr, "tensorcast: warning: %s: %s\n", c.in, w)
		}
	}

	outName := c.out
	if c.out == "-" {
		outName = "stdout"
	}
	bar := newProgress(stderr, size, filepath.Base(c.in), c.quiet)
	start := time.Now()
	if c.out == "-" {
		err = p.execute(f, stdout, c.opt, bar.add)
	} else {
		err = o.write(stderr, func(w io.Writer) error {
			err := p.execute(f, w, c.opt, bar.add)
			f.Close() // before the rename: Windows cannot replace an open file
			return err
		})
	}
	elapsed := time.Since(start)
	bar.finish(err == nil)
	if err != nil {
		return err
	}
	if !c.quiet {
		fmt.Fprintln(stderr, summary(p, outName, c.toName, elapsed))
	}
	return nil
}

// summary is the line printed after a conversion: what was converted, and
// why the other tensors were copied unchanged.
func summary(p *plan, out, toName string, elapsed time.Duration) string {
	secs := max(elapsed.Seconds(), 1e-6)
	var what []string
	// part adds "n <text>", the first part with the unit ("3 tensors").
	part := func(n int, first, later string) {
		if n == 0 {
			return
		}
		if len(what) == 0 {
			what = append(what, plural(n, p.unit)+" "+first)
		} else {
			what = append(what, fmt.Sprintf("%d %s", n, later))
		}
	}
	conv := "converted to " + toName
	part(p.converted, conv, conv)
	part(p.same, "copied unchanged (already "+toName+")", "already "+toName)
	norm := "copied with BOOL bytes normalised to 0 and 1 (already " + toName + ")"
	part(p.normalized, norm, norm)
	part(p.notFloat, "left as is ("+typesReason(p.notFloatTypes, "not a float type", "not float types")+")",
		"left as is ("+typesReason(p.notFloatTypes, "not a float type", "not float types")+")")
	part(p.unselected, "not selected by -only", "not selected by -only")
	part(p.skipped, "skipped by -skip", "skipped by -skip")
	unk := "left as is (" + typesReason(p.unknownTypes, "a dtype tensorcast does not know", "dtypes tensorcast does not know") + ")"
	part(p.unknown, unk, unk)
	if len(what) == 0 { // no tensor at all
		what = append(what, plural(0, p.unit)+" "+conv)
	}
	return fmt.Sprintf("%s: %s; read %s, wrote %s in %.2fs (%s/s)",
		out, strings.Join(what, ", "), humanBytes(float64(p.inSize)), humanBytes(float64(p.outSize)),
		secs, humanBytes(float64(p.inSize)/secs))
}

// typesReason renders "I64, not a float type" or "I64, BOOL: not float types".
func typesReason(types []string, one, several string) string {
	if len(types) == 1 {
		return types[0] + ", " + one
	}
	return strings.Join(types, ", ") + ": " + several
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// humanBytes renders a byte count with a binary unit: 512 B, 1.50 KiB, 2.50 GiB.
func humanBytes(n float64) string {
	if n < 1024 {
		return fmt.Sprintf("%.0f B", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	u := -1
	for n >= 1024 && u < len(units)-1 {
		n /= 1024
		u++
	}
	return fmt.Sprintf("%.2f %s", n, units[u])
}
