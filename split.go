package tensorcast

// Split tables: many tables of an 8-bit source to an 8-bit target are
// nearly a sum of a function of the high nibble and one of the low nibble,
// mod 2^8. A conversion between float8 types maps the code c of a normal
// value to a·c + b plus a rounding term of the lowest bits of c (E4M3FN →
// E5M2: c/2 rounded to even, plus 32), and the sign bit, which is the high
// nibble's top bit, adds 0x80. Rows of 16 codes that all underflow or all
// overflow are one constant each: a row mask drops the low nibble's term
// there. The few bytes left where the sum is wrong (subnormals, the edges
// of overflow, NaN, the FNUZ types' zero and NaN codes) lie in a few runs
// of 16 consecutive bytes, which a correction table each fixes.
//
// On AVX2 that is 7 instructions per 32 bytes, 2 more with the row mask
// and 4 more per window (gen/amd64/split.go), where the general 256-entry
// lookup takes sixteen VPSHUFB and fifteen VPBLENDVB. splitShape finds the
// cheapest description; it is the table's by construction, as splitShape
// checks it on all 256 bytes.

// splitShape returns the cheapest splitParams of the table t, or nil where
// no description with at most maxSplitWindows windows exists. Only the bits
// of mask count: a packed target's codes are the low 2 or 4 bits of each
// byte, which the packing kernels keep (i8ToI4, i8ToI2).
func splitShape(t []uint8, mask uint8) *splitParams {
	var best *splitParams
	cost := func(p *splitParams) int { return 4*int(p.windows) + 2*int(p.masked) }
	// hi and lo are fixed up to a constant moved between them: lo is the
	// row of one reference high nibble (hi of that row 0), and each hi the
	// most common difference of its row from lo, or with the row mask, the
	// row's most common value where that is more common. Every row is tried
	// as the reference.
	for ref := range 16 {
		for _, masked := range []bool{false, true} {
			p := new(splitParams)
			copy(p.lo[:], t[16*ref:16*ref+16])
			for h := range 16 {
				var sum, value [256]int
				for l := range 16 {
					sum[(t[16*h+l]-p.lo[l])&mask]++
					value[t[16*h+l]&mask]++
				}
				s, v := mostCommon(&sum), mostCommon(&value)
				p.hi[h] = s
				if masked && value[v] > sum[s] {
					p.hi[h], p.rows[h], p.masked = v, 0x80, 1
				}
			}
			if p.cover(t, mask) && (best == nil || cost(p) < cost(best)) {
				best = p
			}
		}
	}
	return best
}

// mostCommon returns the index of the largest count (the lowest of ties).
func mostCommon(count *[256]int) uint8 {
	m := 0
	for v := range count {
		if count[v] > count[m] {
			m = v
		}
	}
	return uint8(m)
}

// cover sets p's windows to correct every byte where p without windows
// differs from t, and reports whether maxSplitWindows suffice. The wrong
// bytes are covered greedily, each window starting at the first wrong byte
// not yet covered, with every wrong byte tried as the first of the cycle.
func (p *splitParams) cover(t []uint8, mask uint8) bool {
	p.windows, p.fix = 0, [maxSplitWindows][16]uint8{}
	var wrong []int
	for x := range 256 {
		if (p.at(uint8(x))^t[x])&mask != 0 {
			wrong = append(wrong, x)
		}
	}
	var best []int
	for first := range wrong {
		var starts []int
		for i := 0; i < len(wrong) && len(starts) <= maxSplitWindows; {
			s := wrong[(first+i)%len(wrong)]
			starts = append(starts, s)
			for i < len(wrong) && (wrong[(first+i)%len(wrong)]-s)&255 < 16 {
				i++
			}
		}
		if len(starts) <= maxSplitWindows && (best == nil || len(starts) < len(best)) {
			best = starts
		}
	}
	if best == nil && len(wrong) > 0 {
		return false
	}
	p.windows = uint8(len(best))
	for w, s := range best {
		p.start[w] = uint8(s)
		for j := range 16 { // the windows before w are complete; fix[w][j] is still 0
			x := uint8(s + j)
			p.fix[w][j] = t[x] - p.at(x)
		}
	}
	for x := range 256 {
		if (p.at(uint8(x))^t[x])&mask != 0 {
			return false
		}
	}
	return true
}

// at is the description's value for the byte x, as the kernel computes it:
// VPSHUFB reads an index with bit 7 set as 0.
func (p *splitParams) at(x uint8) uint8 {
	r := p.hi[x>>4]
	if p.rows[x>>4]&0x80 == 0 {
		r += p.lo[x&15]
	}
	for w := range int(p.windows) {
		if j := x - p.start[w]; j < 16 {
			r += p.fix[w][j]
		}
	}
	return r
}

// splitGeneric is the portable split kernel (the AVX2 wrapper's rest).
func splitGeneric(dst []uint8, src []uint8, p *splitParams) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = p.at(x)
	}
}

// splitPackWindows is the most windows of a description that the packing
// kernels take (gen/amd64/split.go's packWindows; the amd64 wrappers check
// that the two agree); lutPackStep packs the others after split8.
const splitPackWindows = 2

// splitPack4Generic and splitPack2Generic pack the codes p describes for
// src (the low 4 or 2 bits of each value) two or four to a byte: the
// portable rest of the AVX2 split packing kernels.
func splitPack4Generic(dst []uint8, src []uint8, p *splitParams) { splitPack(dst, src, p, 4) }
func splitPack2Generic(dst []uint8, src []uint8, p *splitParams) { splitPack(dst, src, p, 2) }

func splitPack(dst []uint8, src []uint8, p *splitParams, w int) {
	mask := uint8(1)<<w - 1
	packFrom(dst, len(src), w, func(i int) uint8 { return p.at(src[i]) & mask })
}
