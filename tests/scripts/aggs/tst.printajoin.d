/*
 * Asserts: printa of several aggregations prints, for a key one of them
 * lacks, a zero of that aggregation's own kind (an empty histogram for a
 * quantize); the same aggregation may be named twice; printa after
 * clear( ) prints the keys with zero values
 */
BEGIN
{
	@a["x"] = count(); @a["y"] = count();
	@b["x"] = quantize(5);
	@c["y"] = sum(7);
	printa("%s %@d %@d\n", @a, @c);
	printa(@a, @b);
	printa("%s %@d %@d\n", @a, @a);
	clear(@a);
	printa("after clear: %s %@d\n", @a);
	exit(0);
}
