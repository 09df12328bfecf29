/*
 * Asserts: tracemem( ) wants a pointer or integer address
 */
BEGIN
{
	tracemem("abc", 4);
}
