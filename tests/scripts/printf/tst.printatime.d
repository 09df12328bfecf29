/*
 * Asserts: %@T and %@Y take an aggregation's value as a time (the text
 * depends on the clock, so only that they compile and print is checked)
 */
BEGIN
{
	@t = max(walltimestamp);
	printa("%@T\n", @t);
	printa("%@Y\n", @t);
	exit(0);
}
