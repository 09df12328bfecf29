# Asserts: scratch space is reused between the clauses of one probe
# firing, except what a clause-local points into.  300 BEGIN clauses each
# build a 204-byte string (more than the firing's scratch holds if none
# were reused: this failed with "out of scratch space" at clause ~158),
# while a string and an alloca'd buffer made by the first clause and kept
# in this-> variables must still read back in the last one.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
L=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
L=$L$L
{
	echo 'BEGIN { this->keep = strjoin("kept", "-string"); this->buf = (char *)alloca(8); this->buf[0] = 42; }'
	i=0
	while [ $i -lt 300 ]; do
		echo "BEGIN { @n[strlen(strjoin(strjoin(\"$L\", \"$i\"), \"y\"))] = count(); }"
		i=$((i + 1))
	done
	printf '%s\n' 'BEGIN { printf("%s %d\n", this->keep, this->buf[0]); exit(0); }'
} > "$tmp/s.d"
out=$($DTRACE -q -s "$tmp/s.d" 2>&1) || { echo "dtrace failed: $out"; exit 1; }
echo "$out" | grep -q scratch && { echo "ran out of scratch: $out"; exit 1; }
echo "$out" | grep -q '^kept-string 42$' || { echo "clause-locals lost: $out"; exit 1; }
n=$(echo "$out" | awk '$1 ~ /^20[234]$/ { s += $2 } END { print s + 0 }')
[ "$n" -eq 300 ] || { echo "counted $n of 300 strings: $out"; exit 1; }
exit 0
