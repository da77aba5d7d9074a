#!/usr/bin/env python3
"""Checks the structure of a gnuplot SVG from tierlab plot, as a reviewer
reads a figure: it parses as XML; it has a title (the topmost text);
no text runs off the figure's edge; every text given with --has is drawn (axis labels with their units,
legend entries); and no two texts overlap, by the coordinates gnuplot
writes (each text's position, anchor, rotation and font size; its width
estimated from its characters, DejaVu Sans's average advance). Prints
one line per problem and exits 1 when there is any.

With --print-width IN: the figure printed IN inches wide keeps every text
at 7 pt or more (gnuplot's SVG has 72 units an inch at its own size).

    svg-check.py FILE.svg [--has TEXT]... [--print-width IN]
"""
import math
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
ADVANCE = 0.55   # average advance of a character, in ems (DejaVu Sans: 0.5-0.65)
ASCENT, DESCENT = 0.72, 0.18
SHRINK = 0.85    # the estimate is an estimate: only overlaps past 15% of a box count


def transform_of(g):
    """(x, y, degrees) of a text group: translate(x,y) [rotate(a)]."""
    t = g.get('transform', '')
    x = y = a = 0.0
    if 'translate(' in t:
        x, y = (float(v) for v in t.split('translate(')[1].split(')')[0].split(','))
    if 'rotate(' in t:
        a = float(t.split('rotate(')[1].split(')')[0])
    return x, y, a


def boxes(root):
    """Each text as (text, corners of its box): its estimated rectangle, rotated about its anchor."""
    out = []
    for g in root.iter(NS + 'g'):
        texts = [t for t in g if t.tag == NS + 'text']
        if not texts or 'translate(' not in g.get('transform', ''):
            continue
        text = ''.join(texts[0].itertext()).strip()
        if not text:
            continue
        fs = float(g.get('font-size', '8'))
        x, y, a = transform_of(g)
        w = len(text) * ADVANCE * fs * SHRINK
        anchor = g.get('text-anchor', 'start')
        x0 = {'start': 0, 'middle': -w / 2, 'end': -w}[anchor]
        h0, h1 = -ASCENT * fs * SHRINK, DESCENT * fs * SHRINK
        r = math.radians(a)
        corners = []
        for dx, dy in ((x0, h0), (x0 + w, h0), (x0 + w, h1), (x0, h1)):
            corners.append((x + dx * math.cos(r) - dy * math.sin(r), y + dx * math.sin(r) + dy * math.cos(r)))
        item = (text, corners)
        # a boxed label is written twice at one place (the box, then the text): one text
        if item not in out:
            out.append(item)
    return out


def overlap(p, q):
    """Do two convex quadrilaterals overlap (separating axis test)?"""
    for poly in (p, q):
        for i in range(4):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            a = [nx * x + ny * y for x, y in p]
            b = [nx * x + ny * y for x, y in q]
            if max(a) <= min(b) or max(b) <= min(a):
                return False
    return True


def main(argv):
    path, want, print_in = argv[1], [], None
    i = 2
    while i < len(argv):
        if argv[i] == '--has' and i + 1 < len(argv):
            want.append(argv[i + 1])
            i += 2
        elif argv[i] == '--print-width' and i + 1 < len(argv):
            print_in = float(argv[i + 1])
            i += 2
        else:
            print('usage: svg-check.py FILE.svg [--has TEXT]...', file=sys.stderr)
            return 2
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f'{path}: not XML: {e}')
        return 1
    problems = []
    bx = boxes(root)
    if not bx:
        problems.append('no text at all')
    else:
        top = min(bx, key=lambda b: min(y for _, y in b[1]))
        if len(top[0]) < 3:
            problems.append(f'no title: the topmost text is {top[0]!r}')
    vb = [float(v) for v in root.get('viewBox', '0 0 0 0').split()]
    for t, c in bx:
        xs, ys = [x for x, _ in c], [y for _, y in c]
        # cut off at the figure's edge (the estimate's own slack: 2 units)
        if vb[2] and (min(xs) < -2 or max(xs) > vb[2] + 2 or min(ys) < -2 or max(ys) > vb[3] + 2):
            problems.append(f'text {t!r} runs off the figure')
    drawn = {t for t, _ in bx}
    for w in want:
        if w not in drawn:
            problems.append(f'missing text {w!r}')
    for j in range(len(bx)):
        for k in range(j + 1, len(bx)):
            if overlap(bx[j][1], bx[k][1]):
                problems.append(f'texts overlap: {bx[j][0]!r} and {bx[k][0]!r}')
    if print_in:
        width = float(root.get('viewBox', '0 0 0 0').split()[2] or root.get('width', '0'))
        sizes = [float(g.get('font-size')) for g in root.iter(NS + 'g') if g.get('font-size')]
        small = min(sizes) * print_in * 72 / width if sizes and width else 0
        if small < 7:
            problems.append(f'printed {print_in} in wide its smallest text is {small:.1f} pt (under 7)')
    for p in problems:
        print(f'{path}: {p}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
