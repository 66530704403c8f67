package arm64

import "fmt"

// Table lookups of 8-bit sources and FLOAT16 ↔ BFLOAT16.

const (
	argsLut8    = "dst *uint8, src *uint8, n int, table *[256]uint8"
	argsLut16   = "dst *uint16, src *uint8, n int, table *[256]uint16, planes *[512]byte"
	args16To16  = "dst *uint16, src *uint16, n int"
	docLut8     = "sets dst[i] = table[src[i]] for i < n (a multiple of 16)."
	docLut16    = "sets dst[i] = table[src[i]] for i < n (a multiple of 16), using planes\nas scratch for the table's low and high bytes."
	docF16ToBF  = "rounds n FLOAT16 to BFLOAT16 (n a multiple of 8): FCVTL, then the integer\nrounding of f32ToBF16NEON."
	docBF16ToF  = "rounds n BFLOAT16 to FLOAT16 (n a multiple of 8) with FCVTN."
	docF16ToBFH = "rounds n FLOAT16 to BFLOAT16 (n a multiple of 8): FCVTL, then BFCVTN\n(FEAT_BF16)."
	lutQuarters = 4 // 64-byte quarters of a 256-byte plane, one TBL/TBX each
)

// lut8: the table stays in 16 registers; a lookup is a TBL on the first
// quarter and a TBX on each of the others, the indices moved down by 64
// between them (TBL gives 0 and TBX leaves the byte for indices beyond the
// 64 bytes, so each byte ends with the entry of its own quarter).
func lut8(f *Func) {
	quarter := f.Dup8(64)
	t := f.Alloc(16)
	f.LoadFrom("R3", t)
	f.Stream(16, 4, func(k int) {
		idx := f.Load(k)
		out := f.Alloc(k)
		for q := range lutQuarters {
			if q == 0 {
				f.Tbl(out, t[:4], idx)
				continue
			}
			f.Sub(B16, idx, idx, quarter)
			f.Tbx(out, t[4*q:4*q+4], idx)
		}
		f.Free(idx)
		f.Store(out)
		f.Free(out)
	})
}

// lut16: the table is split first into a plane of low bytes and one of
// high bytes (UZP1, UZP2) in the caller's buffer at R4; the loop then looks
// up both planes as f8ToF32 does (reloading their quarters, which do not
// fit in the registers with the indices) and interleaves them into words.
func lut16(f *Func) {
	f.comment("split the table into byte planes: planes[b] = low byte, planes[256+b] = high byte")
	f.emit("MOVD", "R4", "R5")
	f.emit("ADD", "$256", "R4", "R6")
	for range 8 { // 32 entries at a time
		t := f.Alloc(4)
		f.LoadFrom("R3", t)
		lo, hi := f.Alloc(2), f.Alloc(2)
		f.Uzp1(B16, lo, t.Even(), t.Odd())
		f.Uzp2(B16, hi, t.Even(), t.Odd())
		storeTo(f, "R5", lo)
		storeTo(f, "R6", hi)
		f.Free(t, lo, hi)
	}
	quarter := f.Dup8(64)
	f.Stream(16, 8, func(k int) {
		idx := f.Load(k)
		planes := []Vec{f.Alloc(k), f.Alloc(k)}
		f.emit("MOVD", "R4", "R5")
		for p, out := range planes {
			for q := range lutQuarters {
				t := f.Alloc(4)
				f.LoadFrom("R5", t)
				if q == 0 {
					f.Tbl(out, t, idx)
				} else {
					f.Tbx(out, t, idx)
				}
				f.Free(t)
				if p == 0 || q < 3 { // four subtractions wrap back to the indices
					f.Sub(B16, idx, idx, quarter)
				}
			}
		}
		f.Free(idx)
		for i := range k {
			lo, hi := planes[0][i:i+1], planes[1][i:i+1]
			w := f.Alloc(2)
			f.Zip1(B16, w[:1], lo, hi)
			f.Zip2(B16, w[1:], lo, hi)
			f.Store(w)
			f.Free(w)
		}
		f.Free(planes...)
	})
}

// storeTo writes v to the address in register ptr, advancing it.
func storeTo(f *Func, ptr string, v Vec) {
	for _, run := range runs(v) {
		f.emit("VST1.P", regList(run), fmt.Sprintf("%d(%s)", 16*len(run), ptr))
	}
}

// FLOAT16 → BFLOAT16: FCVTL widens exactly, then f32ToBF16's rounding
// (NaN lanes first replaced by sign|0x7FC00000, whatever payload FCVTL
// kept).
func f16ToBF16(f *Func) {
	c := newBF16Rounding(f)
	f.Stream(8, 4, func(k int) { storeFree(f, c.narrow(f, f.widenPair(fcvtl, f.Load(k)))) })
}

// FLOAT16 → BFLOAT16 with BFCVTN (the neon+bf16 tier): FCVTL widens
// exactly to normal float32 (FLOAT16's smallest subnormal is 2^-24, so
// BFCVTN's treatment of subnormal inputs never matters), BFCVTN rounds to
// nearest even keeping NaN payloads, and NaN results are then canonicalised
// to sign|0x7FC0 as in f32ToBF16Hardware.
func f16ToBF16Hardware(f *Func) {
	c := newBFCVTNRounding(f)
	f.Stream(8, 4, func(k int) { storeFree(f, c.narrow(f, f.widenPair(fcvtl, f.Load(k)))) })
}

// BFLOAT16 → FLOAT16: zero halves below each value make the float32, and
// FCVTN rounds it as f32ToF16 does (a signalling NaN is quieted keeping its
// top payload bits, as the generic widening's quieting does).
func bf16ToF16(f *Func) {
	zero := f.Zero()
	f.Stream(8, 4, func(k int) { storeFree(f, f.narrowPair(fcvtn, widenBF16(f, f.Load(k), zero))) })
}
