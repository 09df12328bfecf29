/*
 * Asserts: clear() without its aggregation has a prototype error of
 * its own
 */
BEGIN
{
	@n[1] = sum(2);
	clear();
}
