/*
 * Asserts: & of an associative array element is refused
 */
BEGIN
{
	a[1] = 1;
	trace(&a[1]);
}
