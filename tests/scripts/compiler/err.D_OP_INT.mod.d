/*
 * Asserts: % needs integral operands
 */
BEGIN
{
	trace("a" % 2);
}
