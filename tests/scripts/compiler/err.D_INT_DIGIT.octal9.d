/*
 * Asserts: 9 is not an octal digit ("constant 09 contains invalid digit 9")
 */
BEGIN
{
	trace(09);
}
