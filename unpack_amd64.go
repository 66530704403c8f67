//go:build amd64 && gc && !purego && !noasm

package tensorcast

// The AVX-512 unpack kernels (gen/amd64/unpacktab.go), by unpackSlot.
var unpackAVX512 = [2][4]func(dst, src *uint8, n int, table *uint8){
	{unpack4To8AVX512, unpack4To16AVX512, unpack4To32AVX512, unpack4To64AVX512},
	{unpack2To8AVX512, unpack2To16AVX512, unpack2To32AVX512, unpack2To64AVX512},
}

// setUnpackAVX512 installs the AVX-512 unpack kernels in k.
func setUnpackAVX512(k *kernelSet) {
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
