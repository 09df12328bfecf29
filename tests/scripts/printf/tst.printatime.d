/*
 * Asserts: %@T and %@Y take an aggregation's value as a time (they
 * compile; -e stops before tracing)
 * dtrace-flags: -q -e
 */
BEGIN
{
	@t = max(walltimestamp);
	printa("%@T\n", @t);
	printa("%@Y\n", @t);
}
