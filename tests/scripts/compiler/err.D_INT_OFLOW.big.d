/*
 * Asserts: an integer constant too large for 64 bits is refused
 */
BEGIN
{
	trace(99999999999999999999999);
}
