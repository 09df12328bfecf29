/*
 * Asserts: & of an aggregation is the address of a dynamic variable
 */
BEGIN
{
	@n = count();
	trace(&@n);
}
