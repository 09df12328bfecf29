/*
 * Asserts: args[] needs an index
 */
BEGIN
{
	trace(args);
}
