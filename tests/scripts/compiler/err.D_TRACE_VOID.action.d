/*
 * Asserts: trace( ) of an action is trace( ) of a void expression
 */
BEGIN
{
	trace(trace(1));
}
