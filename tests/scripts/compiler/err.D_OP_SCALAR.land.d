/*
 * Asserts: && needs scalar operands
 */
BEGIN
{
	trace(*curpsinfo && 1);
}
