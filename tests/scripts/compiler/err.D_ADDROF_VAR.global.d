/*
 * Asserts: & of a D variable is refused ("cannot take address of dynamic
 * variable")
 */
BEGIN
{
	x = 1;
	trace(&x);
}
