/*
 * Asserts: 8 is not an octal digit
 */
BEGIN
{
	trace(09);
}
