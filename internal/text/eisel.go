package text

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// Eisel-Lemire: the float64 nearest to man × 10^exp10 from a 128-bit
// approximation of the power of ten, or ok=false in the rare cases where the
// approximation cannot decide (the caller then asks strconv). This follows
// Go's strconv (internal/strconv/atofeisel.go; the terse section names refer
// to https://nigeltao.github.io/blog/2020/eisel-lemire.html); tensorcast
// needs it separately only because strconv offers no entry point taking an
// already scanned mantissa and exponent, and scanning twice costs a third of
// the time of a parse. TestEiselLemire compares it with strconv.ParseFloat.

const (
	pow10Min = -348
	pow10Max = 347
)

var (
	pow10Once sync.Once
	// pow10Hi, pow10Lo: floor(10^e × 2^(128-pow10Exp)) in [2^127, 2^128),
	// for e in [pow10Min, pow10Max]: 10^e = (hi:lo)/2^128 × 2^pow10Exp.
	// 696 × 18 bytes, 12 KiB, built on first use.
	pow10Hi, pow10Lo [pow10Max - pow10Min + 1]uint64
	pow10Exp         [pow10Max - pow10Min + 1]int16
)

func buildPow10() {
	ten := big.NewInt(10)
	mask64 := new(big.Int).SetUint64(math.MaxUint64)
	for e := pow10Min; e <= pow10Max; e++ {
		var m *big.Int
		var s int // m = floor(10^e × 2^s)
		if e >= 0 {
			m = new(big.Int).Exp(ten, big.NewInt(int64(e)), nil)
			s = 128 - m.BitLen()
			if s >= 0 {
				m.Lsh(m, uint(s))
			} else {
				m.Rsh(m, uint(-s))
			}
		} else {
			p := new(big.Int).Exp(ten, big.NewInt(int64(-e)), nil)
			s = 127 + p.BitLen() // 2^s / 10^-e lies in (2^127, 2^128)
			m = new(big.Int).Lsh(big.NewInt(1), uint(s))
			m.Quo(m, p)
		}
		i := e - pow10Min
		pow10Lo[i] = new(big.Int).And(m, mask64).Uint64()
		pow10Hi[i] = new(big.Int).Rsh(m, 64).Uint64()
		pow10Exp[i] = int16(128 - s)
	}
}

func eiselLemire64(man uint64, exp10 int, neg bool) (float64, bool) {
	// Exp10 Range.
	if man == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if exp10 < pow10Min || exp10 > pow10Max {
		return 0, false
	}
	pow10Once.Do(buildPow10)
	i := exp10 - pow10Min
	hi, lo, exp2 := pow10Hi[i], pow10Lo[i], int(pow10Exp[i])

	// Normalization.
	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	retExp2 := uint64(exp2+63+1023) - uint64(clz) // biased exponent of the result

	// Multiplication.
	xHi, xLo := bits.Mul64(man, hi)

	// Wider Approximation.
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, lo)
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}

	// Shifting to 54 Bits.
	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb

	// Half-way Ambiguity.
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false
	}

	// From 54 to 53 Bits.
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2++
	}
	// Zero or underflow: subnormal float64 space; 0x7FF or above: Inf/NaN.
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	retBits := retExp2<<52 | retMantissa&(1<<52-1)
	if neg {
		retBits |= 1 << 63
	}
	return math.Float64frombits(retBits), true
}
