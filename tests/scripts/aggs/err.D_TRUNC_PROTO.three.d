/*
 * Asserts: trunc() takes at most the aggregation and a count
 */
BEGIN
{
	@n[1] = sum(10);
	trunc(@n, 1, 2);
}
