/*
 * Asserts: tracemem dynamic size must be an integer
 */
BEGIN
{
	tracemem(arg0, 8, "x");
}
