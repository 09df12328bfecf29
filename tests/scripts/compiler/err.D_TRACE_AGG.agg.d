/*
 * Asserts: trace() of an aggregation is refused
 */
BEGIN
{
	trace(@a);
}
