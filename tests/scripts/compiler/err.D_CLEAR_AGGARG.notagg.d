/*
 * Asserts: clear() takes an aggregation
 */
BEGIN
{
	clear(1);
}
