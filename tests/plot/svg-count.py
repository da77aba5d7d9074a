#!/usr/bin/env python3
"""Counts what a gnuplot SVG from tierlab plot draws, after parsing it as XML
(a malformed file fails here): bars (polygons filled at tierlab's bar
opacity, 0.85, in the panels: the key, a multiplot's last plot, is left
out), baseline lines (plot groups of the panels holding a dashed path),
heatmap cells (palette-filled polygons of the first plot), hatched
polygons (a fill pattern: bars' grey-print patterns, the heatmap's cells
not different from the baseline) and the texts drawn. Prints "bars N", "lines N", "cells N", "hatched N", then one "text T" line
per text element, for tests/cli/plot.sh to check.

    svg-count.py FILE.svg
"""
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
BAR_OPACITY = '0.850000'  # the bars' fill (fs solid 0.85), as gnuplot writes it


def main(path):
    root = ET.parse(path).getroot()
    plots = [g for g in root.iter(NS + 'g') if g.get('id', '').startswith('gnuplot_plot')]
    # a multiplot's plots are gnuplot_plot_<n><letter>, a letter a plot; the bars' key is the last
    letters = sorted({g.get('id')[-1] for g in plots if g.get('id')[-1].isalpha()})
    if len(letters) > 1:
        plots = [g for g in plots if g.get('id')[-1] != letters[-1]]
    bars = sum(1 for g in plots for p in g.iter(NS + 'polygon') if p.get('fill-opacity') == BAR_OPACITY)
    lines = sum(1 for g in plots if any(p.get('stroke-dasharray') for p in g.iter(NS + 'path')))
    cells = 0
    if plots and plots[0].get('id') == 'gnuplot_plot_1':  # one panel: the heatmap
        cells = len(list(plots[0].iter(NS + 'polygon')))
    hatched = sum(1 for g in plots for p in g.iter(NS + 'polygon') if p.get('fill', '').startswith('url(#gpPat'))
    print('bars', bars)
    print('lines', lines)
    print('cells', cells)
    print('hatched', hatched)
    last = None
    for g in root.iter(NS + 'g'):
        for t in g.findall(NS + 'text'):
            text = ''.join(t.itertext()).strip()
            # a boxed label is written twice at one place (for its box, then itself): one text
            if (g.get('transform'), text) != last:
                print('text', text)
            last = (g.get('transform'), text)


if __name__ == '__main__':
    main(sys.argv[1])
