/*
 * Asserts: trace( ) of a void value is refused
 */
BEGIN
{
	trace(bcopy(0, 0, 0));
}
