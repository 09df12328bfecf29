/*
 * Asserts: tracemem() takes an address, a size and a dynamic size at most
 */
BEGIN
{
	tracemem(0, 16, 8, 1);
}
