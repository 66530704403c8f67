//go:build amd64 && gc && !purego && !noasm

package tensorcast

import "golang.org/x/sys/cpu"

// The AVX-512 unpack kernels (gen/amd64/unpacktab.go), by unpackSlot.
var unpackAVX512 = [2][4]func(dst, src *uint8, n int, table *uint8){
	{unpack4To8AVX512, unpack4To16AVX512, unpack4To32AVX512, unpack4To64AVX512},
	{unpack2To8AVX512, unpack2To16AVX512, unpack2To32AVX512, unpack2To64AVX512},
}

// setPackedAVX512 installs the AVX-512 kernels of packed sources and
// targets that unpack.go and lutPackStep use: the unpack kernels, and with
// VBMI the fused lookup-and-pack ones.
func setPackedAVX512(k *kernelSet) {
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
