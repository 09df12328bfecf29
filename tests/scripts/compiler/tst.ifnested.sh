#!/bin/sh
# Asserts: nested if/else with trace/printf in the branches: this-> values
# set before the if are seen inside every branch and after it, values set
# in a branch carry on, the hidden conditions start over for each firing
# (each tick takes a different path), and without -q each firing of the
# clause prints exactly one probe line.  Ticks may land on either CPU, so
# lines are sorted and the CPU and ID columns dropped.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/a.d" <<'D'
BEGIN
{
	n = 0;
}

tick-1ms
/n < 4/
{
	this->v = n * 10;
	this->tag = "t";
	if (this->v >= 20) {
		printf("[%d big", this->v);
		if (this->v == 20) {
			trace(" twenty");
			this->w = 1;
		} else {
			printf(" %s%d", this->tag, this->v + 1);
			this->w = 2;
		}
		printf(" w=%d]", this->w);
	} else if (this->v == 10) {
		printf("[ten %d]", this->w);
	} else {
		trace("[zero");
		trace("]");
	}
	printf(" %d|", this->v + this->w);
	n++;
}

tick-1ms
/n == 4/
{
	exit(0);
}
D
echo "-q:"
$DTRACE -q -s "$tmp/a.d" > "$tmp/q" || exit 1
tr '|' '\n' < "$tmp/q" | sort
echo "no -q:"
$DTRACE -s "$tmp/a.d" > "$tmp/v" 2>/dev/null || exit 1
cut -c12- "$tmp/v" | sort
