/*
 * Asserts: constant division by zero is refused
 */
BEGIN
{
	trace(10 / 0);
}
