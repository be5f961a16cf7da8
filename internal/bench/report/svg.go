package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Layout, in pixels, for a chart readable at 1200px wide.
const (
	width      = 1200
	margin     = 20
	columns    = 4
	colGap     = 16
	panelW     = (width - 2*margin - (columns-1)*colGap) / columns
	barH       = 14
	barGap     = 5
	panelTop   = 24 // panel title
	panelAxis  = 28 // axis and tick labels
	rowGap     = 14
	fontFamily = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
)

// palette is Tableau 10: distinct, and readable by most colour-blind eyes.
var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func color(i int) string { return palette[i%len(palette)] }

// WriteSVG draws the chart: the title (its first line large, any further
// lines below it small), a legend, then per metric a grid of panels, one
// per phase that has it, with one bar per series.
func WriteSVG(w io.Writer, c *Chart, title string) error {
	if len(c.Series) == 0 {
		return fmt.Errorf("nothing to draw: no phases")
	}
	var body bytes.Buffer
	y := legend(&body, c, title)
	for _, m := range metrics {
		y = section(&body, c, m, y)
	}
	height := y + margin
	_, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s">
<rect width="100%%" height="100%%" fill="#fff"/>
%s</svg>
`, width, height, width, height, fontFamily, body.String())
	return err
}

// legend writes the title and the series' colours, wrapping as needed,
// and returns the y below them.
func legend(b *bytes.Buffer, c *Chart, title string) int {
	head, sub, _ := strings.Cut(title, "\n")
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"20\" font-weight=\"bold\">%s</text>\n", margin, margin+10, esc(head))
	x, y := margin, margin+36
	for line := range strings.Lines(sub) {
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#555\">%s</text>\n", margin, y-6, esc(strings.TrimSpace(line)))
		y += 18
	}
	for i, s := range c.Series {
		w := 24 + textWidth(s, 12)
		if x+w > width-margin && x > margin {
			x, y = margin, y+20
		}
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>", x, y-11, color(i))
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>\n", x+19, y, esc(s))
		x += w + 16
	}
	return y + 18
}

// section writes one metric's heading and panels; it returns the y below
// them (unchanged when no phase has the metric).
func section(b *bytes.Buffer, c *Chart, m metric, y int) int {
	var phases []string
	for _, ph := range c.Phases {
		for _, s := range c.Series {
			if p, ok := c.Get(ph, s); ok {
				if _, _, ok := m.value(p); ok {
					phases = append(phases, ph)
					break
				}
			}
		}
	}
	if len(phases) == 0 {
		return y
	}
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\" fill=\"#222\">%s</text>\n", margin, y+16, esc(m.title))
	y += 26
	h := panelTop + len(c.Series)*(barH+barGap) + panelAxis
	for i, ph := range phases {
		col, row := i%columns, i/columns
		panel(b, c, m, ph, margin+col*(panelW+colGap), y+row*(h+rowGap), h)
	}
	rows := (len(phases) + columns - 1) / columns
	return y + rows*(h+rowGap) + 6
}

// panel draws one phase of one metric: a bar per series on a shared axis.
func panel(b *bytes.Buffer, c *Chart, m metric, phase string, x, y, h int) {
	unit := m.unit(phase)
	fmt.Fprintf(b, "<g><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f8f8f8\" stroke=\"#ddd\"/>\n", x, y, panelW, h)
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"13\"><tspan font-weight=\"bold\">%s</tspan><tspan fill=\"#666\" dx=\"5\">· %s</tspan></text>\n",
		x+8, y+16, esc(phase), esc(unit))
	valueRoom := 64
	if m.isRange {
		valueRoom = 124
	}
	bx, maxW := x+8, panelW-16-valueRoom
	var top float64
	for _, s := range c.Series {
		if p, ok := c.Get(phase, s); ok {
			if _, hi, ok := m.value(p); ok {
				top = max(top, hi)
			}
		}
	}
	scale := niceMax(top)
	length := func(v float64) float64 { return max(v, 0) / scale * float64(maxW) }
	for i, s := range c.Series {
		by := y + panelTop + i*(barH+barGap)
		p, ok := c.Get(phase, s)
		lo, hi := 0.0, 0.0
		if ok {
			lo, hi, ok = m.value(p)
		}
		if !ok {
			fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#999\">n/a</text>\n", bx, by+11)
			continue
		}
		label := num(hi)
		if m.isRange {
			label = "p50 " + num(lo) + " · p99 " + num(hi)
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\"/>", bx, by, length(hi), barH, color(i))
		}
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s: %s %s</title></rect>",
			bx, by, length(lo), barH, color(i), esc(s), esc(label), esc(unit))
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#222\">%s</text>\n", float64(bx)+length(hi)+4, by+11, esc(label))
	}
	axis(b, bx, y+panelTop+len(c.Series)*(barH+barGap), maxW, scale)
	b.WriteString("</g>\n")
}

// axis draws the baseline with ticks at 0, half and the top of the scale.
func axis(b *bytes.Buffer, x, y, w int, scale float64) {
	fmt.Fprintf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>", x, y, x+w, y)
	for i, f := range []float64{0, 0.5, 1} {
		tx := float64(x) + f*float64(w)
		anchor := []string{"start", "middle", "middle"}[i]
		fmt.Fprintf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\"/>", tx, y, tx, y+4)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\" text-anchor=\"%s\">%s</text>", tx, y+15, anchor, tick(f*scale))
	}
	b.WriteString("\n")
}

// textWidth estimates a label's width: SVG has no text metrics without a
// renderer, and the legend only needs to avoid overlap.
func textWidth(s string, size int) int {
	return len([]rune(s)) * size * 6 / 10
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
