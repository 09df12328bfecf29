#!/bin/sh
# pack.sh EXPERIMENT OUT: pack an experiment's data files into one fuzz
# input for fuzz_experiment (a byte naming the file, its 32-bit
# little-endian length, its bytes; the order of enum exp_file).
e=$1 out=$2
: > "$out"
i=0
for f in descriptions archives/symbols principal aggregations events; do
	n=$(stat -c %s "$e/$f")
	printf "\\$(printf %03o $i)" >> "$out"
	for s in 0 8 16 24; do
		printf "\\$(printf %03o $(( (n >> s) & 255 )))" >> "$out"
	done
	cat "$e/$f" >> "$out"
	i=$((i + 1))
done
