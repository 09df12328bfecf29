/*
 * Asserts: an associative array may not be referenced as a scalar, as by
 * sizeof ("associative array 'a' may not be referenced as scalar")
 */
BEGIN
{
	a[1] = 1;
	trace(sizeof(a));
}
