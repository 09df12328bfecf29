/*
 * Asserts: every aggregating function compiles and aggregates: keys of
 * several types, printa with a format, the increment of quantize.
 */
#pragma D option quiet

BEGIN
{
	@c["a", 1] = count();
	@c["a", 1] = count();
	@s = sum(10);
	@s = sum(5);
	@mn = min(3);
	@mn = min(-2);
	@mx = max(3);
	@mx = max(9);
	@av = avg(4);
	@av = avg(6);
	printa("%s %d %@d\n", @c);
	printa("%@d\n", @s);
	printa("%@d\n", @mn);
	printa("%@d\n", @mx);
	printa("%@d\n", @av);
	exit(0);
}
