#!/usr/bin/env bash
# Draws every kind of figure tierlab plot makes, from the gallery's
# database (tests/plot/make-gallery.sh), into OUTDIR in each format
# given: a page-wide and a column-wide version of each (a column is what a
# two-column paper prints). `make figures` draws PNG and PDF into docs/img;
# tests/cli/plot-gallery.sh draws SVG and checks their structure.
#
#   tests/plot/gallery.sh TIERLAB DB OUTDIR EXT...
set -eu
tierlab=$1 db=$2 out=$3
shift 3
mkdir -p "$out"
# NAME ARGS...: the figure as OUTDIR/NAME.EXT, and OUTDIR/NAME-column.EXT
draw() {
	local name=$1 ext
	shift
	for ext in "${exts[@]}"; do
		TIERLAB_DB=$db "$tierlab" plot "$@" -o "$out/$name.$ext" >/dev/null
		TIERLAB_DB=$db "$tierlab" plot "$@" --size column -o "$out/$name-column.$ext" >/dev/null
	done
}
exts=("$@")
draw gallery-bars -e fixture
draw gallery-by-chunks -e fixture --by chunks
draw gallery-heatmap -e fixture --heatmap lru
draw gallery-timeline --timeline 18
draw gallery-access-map --access-map 18
draw gallery-allocators -e allocators
draw gallery-figure-pct -e fixture --figure pct
draw gallery-figure-migrated -e fixture --figure migrated
draw gallery-figure-hit -e fixture --figure hit
draw gallery-figure-counters -e allocators --figure counters
