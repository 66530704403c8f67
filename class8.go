package tensorcast

import "math/bits"

// Class rounding: the table of INT8 to a float8 type, as a lookup tree.
// With m = |x| (-128: 128) and h = m>>4, the magnitudes of a row of 16 lie
// in one binade from h = 1 up, so the row's codes are base[h] plus the
// rounding of its low nibble to the binade's significand, which depends
// only on the binade's step: a handful of 16-entry tables cover every row.
// INT8 → the FLOAT8E4M3 types needs four: row 0 (several binades, its codes
// themselves), steps 2, 4 and 8 (rows 1, 2-3, 4-7). The FLOAT8E5M2 types
// have a fifth, step 16 in the rows 4-7, where a tie (low nibble 8) rounds
// to even by h's parity: or-ing h&1 into the index (cls[h]'s bit 0)
// rounds the odd rows' ties up and leaves every other result alone, so
// those rows share the step's table. Per byte:
//
//	j = m | cls[h]&1                         (m = 128: bit 7 set, VPSHUFB reads 0)
//	code = base[h] + rows[class(h)][j&15] | x&0x80
//
// where class(h) is cls[h]'s bit 7 (the first level of a VPBLENDVB tree
// over the four VPSHUFB of j) and bit 6 (the second, after a doubling). On
// AVX2 that is 19 instructions per 32 bytes (21 with the parity bit;
// gen/amd64/class8.go), where the multiply-and-round of round8.go took 26:
// INT8 → the E4M3 types 1.48×, → the E5M2 types 1.27× its rate (Zen 3,
// 64 Ki, best of three). classShape finds the description and checks it on
// all 256 bytes. UINT8's rows from 128 up (h ≥ 8, bit 7 set) need the
// nibble masked and a third level for their one or two tables of their
// own: that tree, 21 or 23 instructions, ran at 0.92–1.04× round8's rate,
// so UINT8 keeps round8.

// maxClasses is the number of row tables a classParams holds (the leaves
// of the kernel's two-level blend tree).
const maxClasses = len(classParams{}.rows)

// classShape returns the class-rounding description of the table t of
// INT8 to an 8-bit target, or nil where there is none within maxClasses
// row tables.
func classShape(t []uint8) *classParams {
	if t[0x80]&0x80 == 0 { // the sign must be the target's bit 7
		return nil
	}
	want := func(m int) uint8 { // the code of the magnitude m
		if m == 128 {
			return t[0x80] &^ 0x80
		}
		return t[m]
	}
	var best *classParams
	bestClasses, bestOrm := maxClasses+1, 9
	// Every choice of orm over rows 0-7, fewest classes first, then fewest
	// or-ed rows (none: the kernel's loop without the or).
	for orm := range 1 << 8 {
		p, classes := classRows(want, orm)
		if p == nil {
			continue
		}
		ones := bits.OnesCount8(uint8(orm))
		if classes < bestClasses || classes == bestClasses && ones < bestOrm {
			best, bestClasses, bestOrm = p, classes, ones
		}
	}
	if best == nil || !best.covers(t) {
		return nil
	}
	return best
}

// classRows builds the description with orm[h] = (orm>>h)&1 for the rows
// 0-7, putting each row in the first class whose table it matches up to a
// constant (its base). It returns nil if a row contradicts itself under
// its orm or more than maxClasses tables are needed, else the description
// and its number of classes.
func classRows(want func(m int) uint8, orm int) (*classParams, int) {
	p := &classParams{}
	var tabs [maxClasses][16]uint8
	var set [maxClasses][16]bool
	classes := 0
	for h := range 8 {
		o := uint8(orm >> h & 1)
		var row [16]uint8
		var has [16]bool
		for l := range 16 {
			j := uint8(l) | o
			if has[j] && row[j] != want(16*h+l) {
				return nil, 0
			}
			row[j], has[j] = want(16*h+l), true
		}
		placed := false
		for c := 0; c < classes && !placed; c++ {
			k, common := uint8(0), false
			for j := range 16 {
				if has[j] && set[c][j] {
					k, common = row[j]-tabs[c][j], true
					break
				}
			}
			if !common {
				continue
			}
			fits := true
			for j := range 16 {
				if has[j] && set[c][j] && row[j]-k != tabs[c][j] {
					fits = false
					break
				}
			}
			if !fits {
				continue
			}
			for j := range 16 {
				if has[j] {
					tabs[c][j], set[c][j] = row[j]-k, true
				}
			}
			p.setRow(h, c, k, o)
			placed = true
		}
		if !placed {
			if classes == maxClasses {
				return nil, 0
			}
			tabs[classes], set[classes] = row, has
			p.setRow(h, classes, 0, o)
			classes++
		}
	}
	p.rows = tabs
	p.base[8] = want(128) // m = 128: the lookups read 0
	if orm != 0 {
		p.useOrm = 1
	}
	return p, classes
}

// setRow puts the row h in class c with base k and or-mask o.
func (p *classParams) setRow(h, c int, k, o uint8) {
	p.cls[h] = uint8(c&1)<<7 | uint8(c>>1)<<6 | o
	p.base[h] = k
}

// at is the description's value for the byte x, as class8AVX2 computes it.
func (p *classParams) at(x uint8) uint8 {
	m := x
	if int8(x) < 0 {
		m = -x // -128 stays 0x80: 128
	}
	h := m >> 4
	j := m | p.cls[h]&1
	c := p.cls[h]>>7 | p.cls[h]>>6&1<<1
	var r uint8
	if j&0x80 == 0 { // VPSHUFB: an index with bit 7 set reads 0
		r = p.rows[c][j&15]
	}
	return p.base[h] + r | x&0x80
}

// covers reports whether p gives t on every byte.
func (p *classParams) covers(t []uint8) bool { return covers(p, t) }

// classGeneric is the portable class-rounding kernel (the AVX2 wrapper's
// rest).
func classGeneric(dst []uint8, src []uint8, p *classParams) { mapBytes(dst, src, p) }
