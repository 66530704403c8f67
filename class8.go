package tensorcast

import (
	"math/bits"
	"slices"
)

// Class rounding: the table of INT8 or UINT8 to a float8 type, as a lookup
// tree. With m = |x| (-128: 128; UINT8: m = x) and h = m>>4, the
// magnitudes of a row of 16 lie in one binade from h = 1 up, so the row's
// codes are base[h] plus the rounding of its low nibble to the binade's
// significand, which depends only on the binade's step: a handful of
// 16-entry tables cover every row. The rows below 128 need four: row 0
// (several binades, its codes themselves), steps 2, 4 and 8 (rows 1, 2-3,
// 4-7) for the FLOAT8E4M3 types. The FLOAT8E5M2 types have a fifth, step
// 16 in the rows 4-7, where a tie (low nibble 8) rounds to even by h's
// parity: or-ing h&1 into the index (cls[h]'s bit 0) rounds the odd rows'
// ties up and leaves every other result alone, so those rows share the
// step's table. Per byte:
//
//	j = m | cls[h]&1                         (m ≥ 128: bit 7 set, VPSHUFB reads 0)
//	INT8:  code = base[h] + rows[class(h)][j&15] | x&0x80
//	UINT8: code = base[h] + rows[class(h)][j&15] + (int8(x) > int8(over[h]))
//
// where class(h) is cls[h]'s bit 7 (the first level of a VPBLENDVB tree
// over the four VPSHUFB of j) and bit 6 (the second, after a doubling).
// UINT8's rows from 128 up (h ≥ 8) read 0 from every table: their step is
// 16 or more, so each holds at most one step of the code, a compare with
// the row's last byte before it (over[h]; 127 for the rows below 128,
// which no signed byte exceeds) adds it. The same compare serves UINT8's
// rows below 128 whose codes take two values (the FLOAT8E5M2 types' rows
// 4-7): a constant table, so UINT8 needs no parity bit. On AVX2 that is 19
// instructions per 32 bytes for INT8 (21 with the parity bit), 18 for
// UINT8 (gen/amd64/class8.go), where the multiply-and-round of round8.go
// took 26 for INT8 and 22 for UINT8: INT8 → the E4M3 types 1.48×, → the
// E5M2 types 1.27× its rate (Zen 3, 64 Ki, best of three); UINT8 → the
// E4M3 types 1.25-1.27×, → the E5M2 types 1.30-1.42× (Zen 3, 64 Ki,
// median of three side by side). classShape finds the description and
// checks it on all 256 bytes.

// maxClasses is the number of row tables a classParams holds (the leaves
// of the kernel's two-level blend tree).
const maxClasses = len(classParams{}.rows)

// classShape returns the class-rounding description of the table t of
// INT8 (unsigned false) or UINT8 to an 8-bit target, or nil where there is
// none within maxClasses row tables.
func classShape(t []uint8, unsigned bool) *classParams {
	if !unsigned && t[0x80]&0x80 == 0 { // the sign must be the target's bit 7
		return nil
	}
	want := func(m int) uint8 { // the code of the magnitude m
		if m == 128 {
			return t[0x80] &^ 0x80
		}
		return t[m]
	}
	var best *classParams
	bestCost, bestThr := [3]int{2, maxClasses + 1, 9}, 0
	thrs := []int{0}
	if unsigned {
		thrs = append(thrs, twoValuedRows(t))
	}
	orms := 1 << 8
	if unsigned {
		orms = 1 // the kernel's UINT8 loop has no or: the compare serves the rows that would
	}
	// Every choice of orm over rows 0-7 (for UINT8, none, with and without
	// its two-valued rows on the compare), no or first (the kernel's loop
	// without it), then fewest classes, then fewest or-ed rows.
	for _, thr := range thrs {
		for orm := range orms {
			p, classes := classRows(want, orm, thr)
			if p == nil {
				continue
			}
			cost := [3]int{min(orm, 1), classes, bits.OnesCount8(uint8(orm))}
			if slices.Compare(cost[:], bestCost[:]) < 0 {
				best, bestCost, bestThr = p, cost, thr
			}
		}
	}
	if best == nil {
		return nil
	}
	if unsigned {
		best.setOver(t, bestThr)
	}
	if !best.covers(t) {
		return nil
	}
	return best
}

// twoValuedRows returns the set (bit h) of the rows h < 8 of the UINT8
// table t whose codes are their first code and from some byte on one more:
// a constant row table and the compare with over[h] give them.
func twoValuedRows(t []uint8) int {
	thr := 0
	for h := range 8 {
		ok := true
		for l := 1; l < 16; l++ {
			if d := t[16*h+l] - t[16*h+l-1]; d > 1 || d == 1 && t[16*h+l] != t[16*h]+1 {
				ok = false
			}
		}
		if ok {
			thr |= 1 << h
		}
	}
	return thr
}

// setOver makes p a UINT8 description: the rows from 128 up read 0 from
// every table, so they are base[h] (their first code) plus one past
// over[h], their last byte with that code, as are the rows below that
// classRows gave a constant table (thr); every other row has over[h] =
// 127, which no signed byte exceeds. covers finds the rows that need more.
func (p *classParams) setOver(t []uint8, thr int) {
	p.unsigned = 1
	for h := range 16 {
		p.over[h] = 127
		if h >= 8 {
			p.cls[h], p.base[h] = 0, t[16*h]
		} else if thr>>h&1 == 0 {
			continue
		}
		l := 0
		for l < 15 && t[16*h+l+1] == t[16*h] {
			l++
		}
		p.over[h] = uint8(16*h + l)
	}
}

// classRows builds the description with orm[h] = (orm>>h)&1 for the rows
// 0-7, putting each row in the first class whose table it matches up to a
// constant (its base); the rows in thr are their first code, constant
// (setOver adds the rest). It returns nil if a row contradicts itself
// under its orm or more than maxClasses tables are needed, else the
// description and its number of classes.
func classRows(want func(m int) uint8, orm, thr int) (*classParams, int) {
	p := &classParams{}
	var tabs [maxClasses][16]uint8
	var set [maxClasses][16]bool
	classes := 0
	for h := range 8 {
		o := uint8(orm >> h & 1)
		var row [16]uint8
		var has [16]bool
		for l := range 16 {
			j, w := uint8(l)|o, want(16*h+l)
			if thr>>h&1 == 1 {
				w = want(16 * h)
			}
			if has[j] && row[j] != w {
				return nil, 0
			}
			row[j], has[j] = w, true
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
	if int8(x) < 0 && p.unsigned == 0 {
		m = -x // -128 stays 0x80: 128
	}
	h := m >> 4
	j := m | p.cls[h]&1
	c := p.cls[h]>>7 | p.cls[h]>>6&1<<1
	var r uint8
	if j&0x80 == 0 { // VPSHUFB: an index with bit 7 set reads 0
		r = p.rows[c][j&15]
	}
	if p.unsigned == 1 {
		if int8(x) > int8(p.over[h]) {
			r++
		}
		return p.base[h] + r
	}
	return p.base[h] + r | x&0x80
}

// covers reports whether p gives t on every byte.
func (p *classParams) covers(t []uint8) bool { return covers(p, t) }

// classGeneric is the portable class-rounding kernel (the AVX2 wrapper's
// rest).
func classGeneric(dst []uint8, src []uint8, p *classParams) { mapBytes(dst, src, p) }
