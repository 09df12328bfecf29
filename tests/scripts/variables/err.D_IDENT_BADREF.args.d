/*
 * Asserts: args without an index is an array used as a scalar
 */
BEGIN
{
	trace(args);
}
