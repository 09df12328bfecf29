/*
 * Asserts: printa checks its conversions against the aggregation's keys
 * (an integer key under %s)
 */
BEGIN
{
	@a[1] = count();
	printa("%s %@d\n", @a);
}
