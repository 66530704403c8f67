//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "golang.org/x/sys/cpu"

// The AVX2 unpack kernels (gen/amd64/unpacktab.go) and their steps, by
// unpackSlot.
var unpackAVX2 = [2][4]struct {
	fn    func(dst, src *uint8, n int, table *uint8)
	lanes int
}{
	{{unpack4To8AVX2, unpack4To8AVX2Lanes}, {unpack4To16AVX2, unpack4To16AVX2Lanes}, {unpack4To32AVX2, unpack4To32AVX2Lanes}, {unpack4To64AVX2, unpack4To64AVX2Lanes}},
	{{unpack2To8AVX2, unpack2To8AVX2Lanes}, {unpack2To16AVX2, unpack2To16AVX2Lanes}, {unpack2To32AVX2, unpack2To32AVX2Lanes}, {unpack2To64AVX2, unpack2To64AVX2Lanes}},
}

// setUnpackAVX2 installs the AVX2 unpack and nibble-map kernels in k.
func setUnpackAVX2(k *kernelSet) {
	k.map4 = kernel[map4Func]{func(dst, src []byte, t *[32]uint8) {
		m := len(src) &^ (map4AVX2Lanes - 1)
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m])
			map4AVX2(&dst[0], &src[0], m, t)
		}
		map4Generic(dst[m:], src[m:], t)
	}, k.tier}
	k.map4Pack = kernel[map4Func]{func(dst, src []byte, t *[32]uint8) {
		m := len(src) &^ (2*map4PackAVX2Lanes - 1) // the kernel counts pairs
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m/2])
			map4PackAVX2(&dst[0], &src[0], m/2, t)
		}
		map4PackGeneric(dst[m/2:], src[m:], t)
	}, k.tier}
	rest := genericUnpack("generic")
	for b, fns := range unpackAVX2 {
		per := 2 << b
		for w, f := range fns {
			k.unpack[b][w] = kernel[unpackFunc]{avx2Unpack(f.fn, f.lanes, per<<w, rest[b][w].fn), k.tier}
		}
	}
}

// avx2Unpack wraps an AVX2 unpack kernel that writes out bytes per source
// byte and takes whole steps of lanes source bytes; rest converts the others.
func avx2Unpack(fn func(dst, src *uint8, n int, table *uint8), lanes, out int, rest unpackFunc) unpackFunc {
	return func(dst, src []byte, t *codeTable) {
		m := len(src) &^ (lanes - 1)
		if m > 0 {
			d := dst[:m*out]
			raceRead(src[:m])
			raceWrite(d)
			fn(&d[0], &src[0], m, &t[0])
		}
		rest(dst[m*out:], src[m:], t)
	}
}

// The AVX-512 unpack kernels (gen/amd64/unpacktab.go), by unpackSlot.
var unpackAVX512 = [2][4]func(dst, src *uint8, n int, table *uint8){
	{unpack4To8AVX512, unpack4To16AVX512, unpack4To32AVX512, unpack4To64AVX512},
	{unpack2To8AVX512, unpack2To16AVX512, unpack2To32AVX512, unpack2To64AVX512},
}

// setPackedAVX512 installs the AVX-512 kernels of packed sources and
// targets that unpack.go and lutPackStep use: the unpack kernels, and with
// VBMI the fused lookup-and-pack ones.
func setPackedAVX512(k *kernelSet) {
	k.map4 = kernel[map4Func]{func(dst, src []byte, t *[32]uint8) {
		if len(src) > 0 {
			d := dst[:len(src)]
			raceRead(src)
			raceWrite(d)
			map4AVX512(&d[0], &src[0], len(src), t)
		}
	}, k.tier}
	k.map4Pack = kernel[map4Func]{func(dst, src []byte, t *[32]uint8) {
		m := len(src) &^ 1
		if m > 0 {
			raceRead(src[:m])
			raceWrite(dst[:m/2])
			map4PackAVX512(&dst[0], &src[0], m/2, t)
		}
		map4PackGeneric(dst[m/2:], src[m:], t)
	}, k.tier}
	if cpu.X86.HasAVX512VBMI {
		k.lutPack[0] = kernel[lutPackFunc]{avx512LutPack(lut8Pack4AVX512, 2), k.tier}
		k.lutPack[1] = kernel[lutPackFunc]{avx512LutPack(lut8Pack2AVX512, 4), k.tier}
	}
	for b, fns := range unpackAVX512 {
		per := 2 << b // elements per source byte
		for w, fn := range fns {
			k.unpack[b][w] = kernel[unpackFunc]{avx512Unpack(fn, per<<w), k.tier}
		}
	}
}

// avx512Unpack wraps an unpack kernel that writes out bytes per source byte.
func avx512Unpack(fn func(dst, src *uint8, n int, table *uint8), out int) unpackFunc {
	return func(dst, src []byte, t *codeTable) {
		if len(src) == 0 {
			return
		}
		dst = dst[:len(src)*out]
		raceRead(src)
		raceWrite(dst)
		fn(&dst[0], &src[0], len(src), &t[0])
	}
}

// avx512LutPack wraps a lookup-and-pack kernel of per elements to a byte:
// the kernel takes the whole groups of per source bytes, the last group is
// packed here.
func avx512LutPack(fn func(dst, src *uint8, n int, table *[256]uint8), per int) lutPackFunc {
	return func(dst, src []byte, t *[256]uint8) {
		n := len(src)
		g := n / per
		if g > 0 {
			raceRead(src[:g*per])
			raceWrite(dst[:g])
			fn(&dst[0], &src[0], g, t)
		}
		if r := n - g*per; r > 0 {
			w := uint(8 / per)
			var v byte
			for j, b := range src[g*per:] {
				v |= t[b] << (w * uint(j))
			}
			dst[g] = v
		}
	}
}
