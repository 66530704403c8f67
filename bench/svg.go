package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// style is how one implementation is drawn in every panel.
type style struct {
	color string
	width float64
	dash  string
}

var styles = map[string]style{
	"tensorcast":   {"#d62728", 3, ""},
	"tier-avx2":    {"#ff7f0e", 1.5, ""},
	"tier-neon":    {"#ff7f0e", 1.5, ""},
	"tier-generic": {"#8c564b", 1.5, ""},
	"parallel":     {"#e377c2", 1.5, "6 3"},
	"cast":         {"#d62728", 1, "2 2"},
	"copy4N":       {"#222222", 2, "8 4"},
	"copyNarrow":   {"#999999", 1.5, "3 3"},
	"x448":         {"#1f77b4", 1.5, ""},
	"tphakala":     {"#2ca02c", 1.5, ""},
	"highway":      {"#9467bd", 1.5, ""},
	"bf16trunc":    {"#17becf", 1.5, ""},
	"bf16rne":      {"#393b79", 1.5, ""},
	"bf16shift":    {"#bcbd22", 1.5, ""},
}

var spare = []string{"#8c6d31", "#7f7f7f", "#aec7e8", "#98df8a", "#ffbb78"}

func styleOf(id string, k int) style {
	if s, ok := styles[id]; ok {
		return s
	}
	return style{spare[k%len(spare)], 1.5, ""}
}

// writeSVG draws one panel per conversion, throughput against size on
// log–log axes shared by all panels, and a legend above them.
func (r *run) writeSVG(w io.Writer, title string) error {
	const (
		cols           = 2
		pw, ph         = 470.0, 250.0 // panel size
		ml, mr, mt, mb = 58.0, 24.0, 28.0, 34.0
	)
	var convs []*conv
	for _, c := range r.convs {
		if len(r.implsOf(c)) > 0 {
			convs = append(convs, c)
		}
	}
	// Legend: every implementation id once, in first-seen order.
	type entry struct{ id, label string }
	var legend []entry
	for _, c := range convs {
		for _, m := range r.implsOf(c) {
			if !slices.ContainsFunc(legend, func(e entry) bool { return e.id == m.id }) {
				legend = append(legend, entry{m.id, legendLabel(m)})
			}
		}
	}
	legendRows := (len(legend) + 2) / 3
	top := 40.0 + 18*float64(legendRows) + 10
	rows := (len(convs) + cols - 1) / cols
	width := cols * pw
	height := top + float64(rows)*ph + 10

	// Shared axes.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range r.results {
		v := x.gelems()
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0.1, 10
	}
	ylo, yhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if yhi == ylo {
		yhi++
	}
	xlo, xhi := math.Log2(float64(slices.Min(r.sizes))), math.Log2(float64(slices.Max(r.sizes)))
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15" font-weight="bold" text-anchor="middle">%s</text>`+"\n", width/2, esc(title))
	for k, e := range legend {
		s := styleOf(e.id, k)
		x, y := 20+float64(k%3)*(width-20)/3, 44+18*float64(k/3)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"%s/>`+"\n", x, y-4, x+26, y-4, s.color, s.width, dashAttr(s.dash))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x+32, y, esc(e.label))
	}
	for p, c := range convs {
		ox, oy := float64(p%cols)*pw, top+float64(p/cols)*ph
		x0, x1, y0, y1 := ox+ml, ox+pw-mr, oy+mt, oy+ph-mb // plot area
		px := func(n int) float64 { return x0 + (math.Log2(float64(n))-xlo)/(xhi-xlo)*(x1-x0) }
		py := func(v float64) float64 { return y1 - (math.Log10(v)-ylo)/(yhi-ylo)*(y1-y0) }
		fmt.Fprintf(&b, `<g><text x="%.1f" y="%.1f" font-size="12" font-weight="bold">%s</text>`+"\n", x0, oy+18, esc(c.name))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#bbb"/>`+"\n", x0, y0, x1-x0, y1-y0)
		for d := ylo; d <= yhi; d++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, d)
				if math.Log10(v) > yhi+1e-9 {
					break
				}
				y := py(v)
				if m == 1 {
					fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x1, y)
					fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-4, y+4, esc(strconv.FormatFloat(v, 'g', -1, 64)))
				} else {
					fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#f0f0f0"/>`+"\n", x0, y, x1, y)
				}
			}
		}
		for _, n := range r.sizes {
			x := px(n)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x, y0, x, y1)
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, y1+14, esc(sizeName(n)))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">elements per call</text>`+"\n", (x0+x1)/2, y1+28)
		fmt.Fprintf(&b, `<text transform="translate(%.1f %.1f) rotate(-90)" text-anchor="middle" fill="#555">Gelem/s</text>`+"\n", ox+14, (y0+y1)/2)
		ims := r.implsOf(c)
		// Draw the dispatched line last, on top.
		slices.SortStableFunc(ims, func(a, b impl) int { return boolInt(a.kind == kDispatched) - boolInt(b.kind == kDispatched) })
		for _, m := range ims {
			k := slices.IndexFunc(legend, func(e entry) bool { return e.id == m.id })
			s := styleOf(m.id, k)
			var pts []string
			for _, n := range r.sizes {
				if x := r.get(c, m.id, n); x != nil && x.gelems() > 0 {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(n), py(x.gelems())))
				}
			}
			if len(pts) == 0 {
				continue
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="%.1f"%s points="%s"><title>%s</title></polyline>`+"\n",
				s.color, s.width, dashAttr(s.dash), strings.Join(pts, " "), esc(m.name))
			for _, pt := range pts {
				xy := strings.Split(pt, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%.1f" fill="%s"/>`+"\n", xy[0], xy[1], 1+s.width/2, s.color)
			}
		}
		fmt.Fprintln(&b, `</g>`)
	}
	fmt.Fprintln(&b, `</svg>`)
	_, err := io.WriteString(w, b.String())
	return err
}

func legendLabel(m impl) string {
	switch m.kind {
	case kDispatched:
		return "tensorcast (dispatched)"
	case kCeiling:
		if m.id == "copy4N" {
			return "copy() 4N bytes"
		}
		return "copy() narrow side"
	case kPeer:
		return shortName(m)
	}
	return m.name
}

func dashAttr(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
