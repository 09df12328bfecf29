/*
 * Asserts: printa of several aggregations, one of which has no entry at
 * all yet, prints that one's zero in its own layout (an empty quantize
 * and lquantize histogram, an avg of 0), as dtrace's joined walk finds
 * its description by aggregation id; with a format, %@d of it is 0.
 */
BEGIN
/pid == -1/
{
	@q[1, "y"] = quantize(1);
	@l[1, "z"] = lquantize(1, 0, 10, 2);
	@v[1, "x"] = avg(3);
}

BEGIN
{
	@c[1, "x"] = count();
	printa(@c, @q, @l, @v);
	printf("--\n");
	printa("%d %s %@d %@d\n", @v, @c);
	printf("--\n");
	exit(0);
}
