/*
 * Asserts: actions are not expressions
 */
BEGIN
{
	x = trace(1);
}
