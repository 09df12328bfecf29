/*
 * Asserts: comparing a string with an integer is refused
 */
BEGIN
{
	trace("abc" == 1);
}
