/*
 * Asserts: an undefined macro argument is refused
 */
BEGIN
{
	trace($5);
}
