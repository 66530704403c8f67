package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/tensorcast/tensorcast"
	"github.com/tensorcast/tensorcast/internal/npy"
)

func init() {
	register(&command{
		name:    "convert",
		args:    "[-from T] -to T [flags] [IN [OUT]]",
		summary: "convert a .safetensors or .npy file, or a raw little-endian tensor (STRING: one value per line), to another type",
		run:     runConvert,
	})
}

// Streaming sizes. Tests lower them to exercise chunk boundaries.
var (
	// chunkBytes is how many input bytes one chunk of a binary source holds
	// (rounded down to a whole number of elements, a multiple of 4).
	chunkBytes = 1 << 20
	// chunkStrings is how many elements one chunk holds when either side is
	// STRING.
	chunkStrings = 1 << 16
	// maxLine is the longest accepted line of a STRING input, in bytes.
	maxLine = 1 << 20
)

// Input formats of convert.
const (
	formatRaw         = "raw"
	formatSafetensors = "safetensors"
	formatNpy         = "npy"
)

// convertConfig is a parsed convert command line.
type convertConfig struct {
	format   string // formatRaw, formatSafetensors or formatNpy
	from, to tensorcast.DataType
	opt      tensorcast.Options
	in, out  string // paths; "" or "-" mean stdin and stdout
	// File formats only.
	toName     string   // the target's name in the output format: BF16, <f2
	only, skip []string // tensor name globs
	quiet      bool
	inPlace    bool // OUT may be IN
}

const convertHelp = `Converts tensors from one ONNX element type to another with tensorcast.Cast
(ONNX Cast semantics, bit-exact), streaming: memory stays flat (a few MiB of
buffers) whatever the size of the input.

OUTPUT. A regular file OUT (new or existing) is written to a temporary file
in its directory, synced and renamed to OUT only on success: on any error
(exit status 1), and on SIGINT, SIGTERM or SIGHUP (the process then ends by
that signal), OUT is left untouched and the temporary file is removed. A
new file gets mode 0666 minus the umask; a replaced file keeps its mode (and
its owner, where allowed). A symbolic link OUT is followed: its target is
replaced and the link stays a link. An OUT that is not a regular file (a
device such as /dev/null, a FIFO, a Unix socket) is opened and written
directly, with no temporary file: a failure there leaves what was written.
OUT that is IN (the same file, also through a symbolic or hard link) is
refused unless -in-place is given; the input is then replaced once
converted (another hard link to it keeps the old content).

FILES: .safetensors and .npy
  tensorcast convert --to BF16 model.safetensors model-bf16.safetensors
  tensorcast convert --to F16 --skip '*norm*' in.safetensors out.safetensors
  tensorcast convert --to float16 emb.npy emb16.npy

The format is chosen by -format, else by IN's extension (.safetensors,
.npy), else by content: a file starting with the .npy magic "\x93NUMPY" is
a .npy file (use -format raw to read one as raw data). The file says its
own dtype, so -from is not used. IN must be a file; OUT may be "-" for
stdout.

.safetensors: every floating-point tensor (F64, F32, F16, BF16, F8_E4M3,
F8_E5M2, F8_E8M0) is converted to -to; integer and BOOL tensors are copied
unchanged, and so are tensors of a dtype tensorcast does not know (F4, C64,
...), with a warning. -only and -skip (name globs in Go's path.Match syntax:
* ? [a-z], '*' does not cross '/'; repeatable or comma-separated) narrow the
floating-point tensors converted: -only keeps those matching one of its
globs, -skip then drops those matching one of its (F8_E8M0 scale tensors of
MX formats are floating-point too: keep them with -skip). A tensor already
of the target dtype is copied. __metadata__ is kept, the tensors keep their
order, and the header follows the format exactly (contiguous data_offsets,
JSON padded with spaces to 8 bytes). The target must have a safetensors
name: BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64,
F8_E4M3, F8_E5M2, F8_E8M0.

.npy (versions 1.0, 2.0, 3.0): the array is converted whatever its type
(b1, i1-i8, u1-u8, f2, f4, f8; little- or big-endian, read as such) and
written as numpy.save does, version 1.0, little-endian ('<f2'), in the same
element order: a Fortran-order array stays Fortran-order (the conversion is
element by element, so the layout and the fortran_order flag carry over).
An array already of the target type (and little-endian) is copied, except
that a BOOL array's bytes are normalised to 0 and 1 as Cast's BOOL to BOOL
does (numpy writes only those; any other byte reads as True). numpy has no
bfloat16 or float8 dtypes: such targets are refused rather than written as
raw bytes under another dtype; use .safetensors for them (the 2- and 4-bit
types and STRING have no dtype in either format).

-to accepts ONNX names (FLOAT16, BFLOAT16, FLOAT8E4M3FN), safetensors names
(F16, BF16, F8_E4M3) and numpy spellings (float16, '<f2', f2, int64, '<i8');
'tensorcast types' lists every name. Spellings that conventions read as
different types are refused as ambiguous, with the candidates: i8, u8, i4,
u4, i2, u2, f4, f8 (numpy counts bytes, others bits: write '<i8' or I8),
float (numpy's is float64: write float32 or float64; FLOAT in capitals is
ONNX's float32), int, uint, fp8.

A truncated or malformed file (bad JSON, offsets outside the data or
overlapping, a shape that does not match its bytes, a bad .npy dict, data
shorter than the shape) is a one-line error naming the file and the tensor.
On a terminal a progress bar is shown on stderr; a summary line follows
(tensors converted, and why the others were copied unchanged: already of
the target dtype, not a float type, not selected by -only, skipped by
-skip; bytes in and out, time, throughput). -quiet prints nothing but
errors.

RAW TENSORS
  tensorcast convert -from FLOAT -to BFLOAT16 in.f32 out.bf16

Input and output are raw little-endian element data, exactly as ONNX
TensorProto.raw_data: 2- and 4-bit types packed, first element in the low
bits; BOOL one byte each. STRING tensors are text, one value per line (a
trailing "\r" is ignored). IN and OUT default to stdin and stdout ("-" also
means those). An input that is not a whole number of elements, or a line
that is not a number, is an error (exit status 1).

Note that a packed input (INT4, UINT4, FLOAT4E2M1, INT2, UINT2) holds a whole
number of bytes, so its element count is read as 2 (or 4) per byte: the
padding of an odd-length tensor comes back as one more element.

flags (-flag and --flag are the same):
`

// globList is a repeatable flag of comma-separated path.Match globs.
type globList []string

func (g *globList) String() string { return strings.Join(*g, ",") }

func (g *globList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("bad glob %q: %v", p, err)
		}
		*g = append(*g, p)
	}
	return nil
}

func parseConvertArgs(args []string, stdout io.Writer) (*convertConfig, error) {
	fl := flag.NewFlagSet("convert", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	from := fl.String("from", "", "source element `type` of a raw tensor (required for raw tensors, not used for files), e.g. FLOAT, float16, bf16, 17")
	to := fl.String("to", "", "target element `type` (required), e.g. BF16, FLOAT16, float16, '<f2'")
	noSat := fl.Bool("no-saturate", false, "ONNX saturate=0: float8 / FLOAT8E8M0 overflow gives NaN or Inf instead of the largest finite value")
	sat := fl.Bool("saturate", true, "ONNX saturate=1 (the default); -saturate=false is -no-saturate")
	round := fl.String("round-mode", "up", "FLOAT8E8M0 rounding: up, down or nearest (ONNX round_mode)")
	format := fl.String("format", "", "input `format`: safetensors, npy or raw (default: from IN's extension, raw otherwise)")
	c := &convertConfig{}
	fl.Var((*globList)(&c.only), "only", "convert only the floating-point tensors whose name matches a `glob` (.safetensors; repeatable, comma-separated)")
	fl.Var((*globList)(&c.skip), "skip", "do not convert the tensors whose name matches a `glob` (.safetensors; repeatable, comma-separated)")
	fl.BoolVar(&c.quiet, "quiet", false, "no progress bar, summary or warnings: errors only")
	fl.BoolVar(&c.quiet, "q", false, "short for -quiet")
	fl.BoolVar(&c.inPlace, "in-place", false, "allow OUT to be IN (the same file, also through a link): the input is replaced once converted")

	// Accept flags before and after the positional arguments.
	var pos []string
	rest := args
	for {
		if err := fl.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "usage: tensorcast convert %s\n\n%s", commands["convert"].args, convertHelp)
				fl.SetOutput(stdout)
				fl.PrintDefaults()
				return nil, errHelp
			}
			return nil, usagef("convert: %v", err)
		}
		left := fl.Args()
		if len(left) == 0 {
			break
		}
		if k := len(rest) - len(left); k > 0 && rest[k-1] == "--" {
			pos = append(pos, left...) // everything after "--" is positional
			break
		}
		pos = append(pos, left[0])
		rest = left[1:]
	}
	if len(pos) > 2 {
		return nil, usagef("convert: too many arguments (want at most IN and OUT): %q", pos[2:])
	}
	if len(pos) > 0 {
		c.in = pos[0]
	}
	if len(pos) > 1 {
		c.out = pos[1]
	}

	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["saturate"] && *sat && *noSat {
		return nil, usagef("convert: -saturate and -no-saturate contradict each other")
	}
	c.opt.NoSaturate = *noSat || !*sat
	var err error
	if c.opt.RoundMode, err = tensorcast.ParseRoundMode(*round); err != nil {
		return nil, usagef("convert: -round-mode: %v", strings.TrimPrefix(err.Error(), "tensorcast: "))
	}

	switch c.format = *format; c.format {
	case "":
		c.format = formatOf(c.in)
		if c.format == formatRaw && isNpy(c.in) {
			c.format = formatNpy
		}
	case formatRaw, formatSafetensors, formatNpy:
	default:
		return nil, usagef("convert: -format %q: want safetensors, npy or raw", *format)
	}
	if c.format != formatRaw {
		return c, c.checkFileArgs(*from, *to)
	}

	if len(c.only)+len(c.skip) > 0 {
		return nil, usagef("convert: -only and -skip select tensors of a .safetensors file, not of a raw tensor")
	}
	if *from == "" || *to == "" {
		return nil, usagef("convert: -from and -to are both required (for a raw tensor; a .safetensors or .npy IN needs only -to)")
	}
	for _, p := range []struct {
		name string
		s    string
		t    *tensorcast.DataType
	}{{"-from", *from, &c.from}, {"-to", *to, &c.to}} {
		if *p.t, err = tensorcast.ParseDataType(p.s); err != nil {
			return nil, usagef("convert: %s: %v", p.name, strings.TrimPrefix(err.Error(), "tensorcast: "))
		}
		if !p.t.Castable() {
			return nil, usagef("convert: %s: %v is not a type Cast supports", p.name, *p.t)
		}
	}
	return c, nil
}

func runConvert(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, err := parseConvertArgs(args, stdout)
	if err != nil {
		return err
	}
	if c.format != formatRaw {
		return runConvertFile(c, stdout, stderr)
	}
	r := stdin
	var inInfo fs.FileInfo // IN's file, to refuse an OUT that is IN
	inName := c.in
	if c.in != "" && c.in != "-" {
		f, err := os.Open(c.in)
		if err != nil {
			return err
		}
		defer f.Close()
		// Refuse a truncated file before creating any output.
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if err := checkWhole(st.Size(), c.from); err != nil {
				return fmt.Errorf("%s: %w", c.in, err)
			}
			inInfo = st
		}
		r = f
	} else if f, ok := stdin.(*os.File); ok {
		// "convert ... <x.f32 x.f32": stdin redirected from OUT.
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			inInfo, inName = st, "(stdin)"
		}
	}
	if c.out == "" || c.out == "-" {
		return convertStream(r, stdout, c.from, c.to, c.opt)
	}
	o, err := openOutput(c.out, inName, inInfo, c.inPlace)
	if err != nil {
		return err
	}
	return o.write(stderr, func(w io.Writer) error {
		return convertStream(r, w, c.from, c.to, c.opt)
	})
}

// isNpy reports whether name is a regular file that starts with the .npy
// magic (a 6-byte string no raw tensor is likely to start with; -format raw
// reads one that does).
func isNpy(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	var magic [len(npy.Magic)]byte
	_, err = f.ReadAt(magic[:], 0)
	return err == nil && string(magic[:]) == npy.Magic
}

// checkWhole reports an error when size bytes are not a whole number of
// elements of t. Packed 2- and 4-bit types accept any whole byte count.
func checkWhole(size int64, t tensorcast.DataType) error {
	eb := int64(t.BitSize() / 8)
	if t == tensorcast.String || eb <= 1 || size%eb == 0 {
		return nil
	}
	return truncatedError(size, t)
}

func truncatedError(size int64, t tensorcast.DataType) error {
	eb := int64(t.BitSize() / 8)
	return fmt.Errorf("truncated input: %d bytes is not a whole number of %v elements (%d bytes each): the element at byte offset %d has only %d of its %d bytes",
		size, t, eb, size-size%eb, size%eb, eb)
}

// chunkElems is the number of elements converted per chunk: a multiple of 4,
// so that no packed byte of a 2- or 4-bit source or target straddles chunks.
func chunkElems(from, to tensorcast.DataType) int {
	n := chunkStrings
	if from != tensorcast.String && to != tensorcast.String {
		n = chunkBytes * 8 / from.BitSize()
	}
	return max(n&^3, 4)
}

// convertStream converts the whole tensor read from r and writes it to w, in
// chunks through buffers allocated once. It returns an error, having written
// no element of the failing chunk, for a truncated binary input or a STRING
// line that does not parse.
func convertStream(r io.Reader, w io.Writer, from, to tensorcast.DataType, opt tensorcast.Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	if from == tensorcast.String {
		err = convertFromLines(bufio.NewReaderSize(r, 64<<10), bw, to, opt)
	} else {
		err = convertBinary(r, bw, from, to, opt)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func convertBinary(r io.Reader, bw *bufio.Writer, from, to tensorcast.DataType, opt tensorcast.Options) error {
	ce := chunkElems(from, to)
	in := make([]byte, from.Size(ce))
	var out []byte
	var strs []string
	if to == tensorcast.String {
		strs = make([]string, ce)
	} else {
		out = make([]byte, to.Size(ce))
	}
	bits := from.BitSize()
	var offset int64
	for {
		k, err := io.ReadFull(r, in)
		if err == io.EOF {
			return nil
		}
		last := err == io.ErrUnexpectedEOF
		if err != nil && !last {
			return fmt.Errorf("reading input at byte offset %d: %w", offset+int64(k), err)
		}
		if bits >= 16 && k%(bits/8) != 0 {
			return truncatedError(offset+int64(k), from)
		}
		n := k * 8 / bits
		if to == tensorcast.String {
			if err := tensorcast.CastToStrings(strs, in[:k], from, n); err != nil {
				return err
			}
			if err := writeLines(bw, strs[:n]); err != nil {
				return err
			}
		} else {
			if err := tensorcast.Cast(out, to, in[:k], from, n, opt); err != nil {
				return err
			}
			if _, err := bw.Write(out[:to.Size(n)]); err != nil {
				return err
			}
		}
		offset += int64(k)
		if last {
			return nil
		}
	}
}

func writeLines(bw *bufio.Writer, lines []string) error {
	for _, s := range lines {
		bw.WriteString(s)
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return nil
}

// convertFromLines converts a STRING tensor, one element per line.
func convertFromLines(br *bufio.Reader, bw *bufio.Writer, to tensorcast.DataType, opt tensorcast.Options) error {
	ce := chunkElems(tensorcast.String, to)
	lines := make([]string, 0, ce)
	var out []byte
	if to != tensorcast.String {
		out = make([]byte, to.Size(ce))
	}
	var lineBuf []byte
	done := 0 // lines converted in earlier chunks
	for eof := false; !eof; {
		lines = lines[:0]
		for len(lines) < ce {
			var err error
			lineBuf, err = readLine(br, lineBuf[:0])
			if err == io.EOF {
				eof = true
				if len(lineBuf) == 0 {
					break
				}
			} else if err != nil {
				return fmt.Errorf("reading line %d: %w", done+len(lines)+1, err)
			}
			lines = append(lines, string(lineBuf))
			if eof {
				break
			}
		}
		if len(lines) == 0 {
			break
		}
		if to == tensorcast.String {
			if err := writeLines(bw, lines); err != nil {
				return err
			}
		} else {
			if err := tensorcast.CastFromStrings(out, to, lines, opt); err != nil {
				return badLineError(lines, done, to, opt, err)
			}
			if _, err := bw.Write(out[:to.Size(len(lines))]); err != nil {
				return err
			}
		}
		done += len(lines)
	}
	return nil
}

// readLine appends the next line of br, without its "\n" or "\r\n", to buf.
// It returns io.EOF with the last line when that has no newline (or with an
// empty buf at the end of the input).
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf) > maxLine+2 {
			return buf, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = trimNewline(buf)
		if len(buf) > maxLine {
			return buf, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		return buf, err
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// badLineError finds the first line of the chunk that does not parse (the
// library reports the element index within the chunk) and names its line
// number in the input.
func badLineError(lines []string, done int, to tensorcast.DataType, opt tensorcast.Options, err error) error {
	var one [8]byte
	for i := range lines {
		e := tensorcast.CastFromStrings(one[:], to, lines[i:i+1], opt)
		if e == nil {
			continue
		}
		if inner := errors.Unwrap(e); inner != nil {
			e = inner
		}
		msg := strings.TrimPrefix(e.Error(), "tensorcast: ")
		if q := strconv.Quote(lines[i]); !strings.Contains(msg, q) {
			msg += ": " + q
		}
		return fmt.Errorf("line %d: cannot convert to %v: %s", done+i+1, to, msg)
	}
	return err
}
