package tensorcast

// Two-valued tables: the table of an 8-bit source to an 8- or 16-bit target
// is often one value where a few bits of the source are all zero and
// another elsewhere (BOOL to anything: mask 0xFF; E4M3FN and E5M2 to BOOL:
// 0x7F, as ±0 is false; the FNUZ types to BOOL: 0xFF; E8M0 to BOOL: always
// true, mask 0). tableFor finds that shape in the table it builds
// (selectShape), and on the tiers with select kernels (AVX2, AVX-512) the
// lookup steps run those instead of the 256-entry lookup: a test and a blend
// per vector. The result is the table's by construction: the shape is
// checked on all 256 entries.

// selectShape returns the selectParams of the two-valued table t, or nil.
func selectShape[T uint8 | uint16](t []T) *selectParams {
	splat := func(v T) uint32 {
		if isByte[T]() {
			return uint32(v) * 0x01010101
		}
		return uint32(v) * 0x00010001
	}
	for _, mask := range []uint8{0x00, 0x7F, 0xFF} { // the narrowest test first
		zero, other := t[0], t[mask]
		ok := true
		for x := range 256 {
			want := zero
			if uint8(x)&mask != 0 {
				want = other
			}
			if t[x] != want {
				ok = false
				break
			}
		}
		if ok {
			return &selectParams{mask: uint32(mask) * 0x01010101, zero: splat(zero), other: splat(other)}
		}
	}
	return nil
}

// isByte reports whether T is uint8.
func isByte[T uint8 | uint16]() bool {
	var z T
	return any(z) == any(uint8(0))
}

// selectGeneric is the portable select kernel (the AVX2 wrappers' rest);
// the fields of p hold T's value in their low bits.
func selectGeneric[T uint8 | uint16](dst []T, src []uint8, p *selectParams) {
	dst = dst[:len(src)]
	mask, zero, other := uint8(p.mask), T(p.zero), T(p.other)
	for i, v := range src {
		r := zero
		if v&mask != 0 {
			r = other
		}
		dst[i] = r
	}
}
