package arm64

import (
	"fmt"
	"math/bits"
)

// Packed sources through small tables (unpack.go of the package): the
// unpack kernels look up every 4- or 2-bit code of the source bytes in a
// 16-entry codeTable of 1 to 8-byte values, map4 and map4Pack look up the
// two nibbles of every byte in two 16-byte tables.
//
// An unpack kernel splits the table into byte planes once (plane j holds
// byte j of the 16 entries, one register each: UZP1/UZP2 of the table's
// registers, log2(size) times), so every lookup is a one-register TBL per
// target byte. For each 16 source bytes it separates the codes (AND/USHR),
// interleaves them into memory order (ZIP1/ZIP2 at bytes, then halfwords
// for 2-bit codes), looks each code vector up in every plane and
// interleaves the planes into the values (ZIP at bytes, halfwords, words):
// per 16 codes, size TBL and size·log2(size) ZIP for size output vectors.

const (
	argsUnpack = "dst *uint8, src *uint8, n int, t *codeTable"
	argsMap4   = "dst *uint8, src *uint8, n int, t *[32]uint8"
)

// packedKernels returns the unpack kernels (4-bit then 2-bit codes, each
// for targets of 8, 16, 32 and 64 bits) and map4, map4Pack.
func packedKernels() []kernelDef {
	var ks []kernelDef
	for _, width := range []int{4, 2} {
		for w := range 4 {
			per := 8 / width
			ks = append(ks, kernelDef{
				name: fmt.Sprintf("unpack%dTo%dNEON", width, 8<<w),
				args: argsUnpack,
				doc: fmt.Sprintf("writes, for each of the n source bytes (n a multiple of 16), the\n"+
					"%d-byte entries of t indexed by its %d codes, low code first: value %d·i+j\n"+
					"of dst is entry (src[i] >> %d·j) & %d.", 1<<w, per, per, width, 1<<width-1),
				build: func(f *Func) { unpackCodes(f, width, w) },
			})
		}
	}
	return append(ks,
		kernelDef{"map4NEON", argsMap4, "sets dst[i] = t[src[i]&15] | t[16+src[i]>>4] for i < n (a multiple of 16).", map4},
		kernelDef{"map4PackNEON", argsMap4, "packs the values t[src[i]&15] | t[16+src[i]>>4] (each below 16) two to a\n" +
			"byte, the first in the low nibble, for i < n (a multiple of 32).", map4Pack},
	)
}

// unpackCodes: width-bit codes to 1<<w-byte values. The loop loads up to
// four source vectors at a time and converts them one after another,
// storing each code vector's values as soon as they are interleaved (a
// 2-bit source vector gives up to 32 output vectors, more than the
// registers hold).
func unpackCodes(f *Func, width, w int) {
	size := 1 << w
	t := f.Alloc(size)
	f.LoadFrom("R3", t)
	planes := bytePlanes(f, t)
	mask := f.Dup8(uint8(1<<width - 1))
	unroll := max(1, 4>>w)
	f.Stream(16, unroll, func(k int) {
		x := f.Load(k)
		for i := range k {
			var fields [][]Vec
			for c := 0; c < 8; c += width {
				v := f.Alloc(1)
				switch {
				case c == 0:
					f.And(v, x[i:i+1], mask)
				case c+width == 8:
					f.Ushr(B16, v, x[i:i+1], uint32(c))
				default:
					f.Ushr(B16, v, x[i:i+1], uint32(c))
					f.And(v, v, mask)
				}
				fields = append(fields, []Vec{v})
			}
			for _, codes := range interleave(f, fields, B16) {
				vals := make([][]Vec, size)
				for j, p := range planes {
					vals[j] = []Vec{f.Alloc(1)}
					f.Tbl(vals[j][0], p, codes)
				}
				f.Free(codes)
				out := interleave(f, vals, B16)
				for _, o := range out {
					f.Store(o)
				}
				f.Free(out...)
			}
		}
		f.Free(x)
	})
}

// bytePlanes splits the table in t (16 entries of len(t) bytes) into
// len(t) registers, plane j holding byte j of every entry. Each level of
// UZP1/UZP2 separates the even and odd bytes of every stream, so after
// log2(len(t)) levels stream s holds byte bitreverse(s).
func bytePlanes(f *Func, t Vec) []Vec {
	streams := []Vec{t}
	for len(streams[0]) > 1 {
		var next []Vec
		for _, s := range streams {
			e, o := f.Alloc(len(s)/2), f.Alloc(len(s)/2)
			f.Uzp1(B16, e, s.Even(), s.Odd())
			f.Uzp2(B16, o, s.Even(), s.Odd())
			f.Free(s)
			next = append(next, e, o)
		}
		streams = next
	}
	levels := bits.TrailingZeros(uint(len(t)))
	planes := make([]Vec, len(t))
	for s, v := range streams {
		planes[bits.Reverse(uint(s))>>(bits.UintSize-levels)] = v
	}
	return planes
}

// interleave merges groups of vectors whose elements (of arrangement a)
// alternate in memory: group g holds element g of every run of len(groups)
// elements, in order. Adjacent groups are zipped pairwise (ZIP1, ZIP2) into
// groups of twice the element size until one group remains, which it
// returns in memory order; the inputs are freed as they are consumed.
func interleave(f *Func, groups [][]Vec, a Arr) []Vec {
	for len(groups) > 1 {
		var next [][]Vec
		for g := 0; g < len(groups); g += 2 {
			var merged []Vec
			for l := range groups[g] {
				lo, hi := f.Alloc(1), f.Alloc(1)
				f.Zip1(a, lo, groups[g][l], groups[g+1][l])
				f.Zip2(a, hi, groups[g][l], groups[g+1][l])
				f.Free(groups[g][l], groups[g+1][l])
				merged = append(merged, lo, hi)
			}
			next = append(next, merged)
		}
		groups = next
		a += 2 // B16 → H8 → S4 → D2
	}
	return groups[0]
}

// map4: a TBL of each nibble in its 16-byte table, then ORR.
func map4(f *Func) {
	t := map4Tables(f)
	mask := f.Dup8(0x0F)
	f.Stream(16, 4, func(k int) {
		x := f.Load(k)
		v := map4Values(f, t, mask, x)
		f.Store(v)
		f.Free(v)
	})
}

// map4Pack: map4's values for 32 bytes, packed with UZP1/UZP2 and SLI.
func map4Pack(f *Func) {
	t := map4Tables(f)
	mask := f.Dup8(0x0F)
	f.Stream(32, 2, func(k int) {
		x := f.Load(2 * k)
		v := map4Values(f, t, mask, x)
		out := packNibbles(f, v)
		f.Free(v)
		f.Store(out)
		f.Free(out)
	})
}

func map4Tables(f *Func) Vec {
	t := f.Alloc(2)
	f.LoadFrom("R3", t)
	return t
}

// map4Values returns t[x&15] | t[16+x>>4] for the bytes of x, which it
// frees.
func map4Values(f *Func, t, mask, x Vec) Vec {
	lo := f.Alloc(len(x))
	f.And(lo, x, mask)
	f.Ushr(B16, x, x, 4)
	f.Tbl(lo, t[:1], lo)
	f.Tbl(x, t[1:], x)
	f.Orr(lo, lo, x)
	f.Free(x)
	return lo
}
