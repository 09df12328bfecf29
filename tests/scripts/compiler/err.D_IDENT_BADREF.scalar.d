/*
 * Asserts: a scalar variable may not be indexed like an array
 */
BEGIN
{
	x = 1;
	trace(x[0]);
}
