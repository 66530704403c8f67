package amd64

// i8ToI2 packs quads of bytes into the packed 2-bit types: b3<<6 | b2<<4 |
// b1<<2 | b0, each bi&3, the first element in the low bits. It keeps the low
// two bits of every byte, then VPMADDUBSW with the weights 1, 4 makes each
// 16-bit lane b0 + 4·b1 (at most 15), VPMADDWD with 1, 16 each 32-bit lane
// (b0 + 4·b1) + 16·(b2 + 4·b3) (at most 255), and the low byte of every
// 32-bit lane is stored. n counts quads of source bytes; the Go wrappers
// (kernel_amd64.go) pack a partial last quad.
func i8ToI2(a *Asm) {
	for _, isa := range []ISA{AVX2, AVX512} {
		a.Func("i8ToI2"+isa.String(), isa, "func(dst *uint8, src *uint8, n int)",
			"n counts quads of source bytes.")
		dst, src, n := a.Args()
		lanes := a.Lanes32() // a vector of source bytes is this many quads
		low := a.Splat(0x03030303)
		w14, w116 := a.Splat(0x04010401), a.Splat(0x00100001)
		nw := a.narrower(32, 8)
		a.Stream(Loop{SrcSize: 4, DstSize: 1, Lanes: lanes, Unroll: 4}, dst, src, n, Each(lanes, func(s *Step) {
			w := a.Vec()
			a.VLoad(w, s.Src, 8, s.M(4, 0))
			a.And(low, w, w)
			a.VPMADDUBSW(w14, w, w)
			a.VPMADDWD(w116, w, w)
			s.StoreLow(nw(w), lanes, s.Dst, 8, s.M(1, 0))
		}))
	}
}
