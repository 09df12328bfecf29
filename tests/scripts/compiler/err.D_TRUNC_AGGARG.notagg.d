/*
 * Asserts: trunc( ) wants an aggregation
 */
BEGIN
{
	trunc(1);
}
