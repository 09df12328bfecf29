/*
 * Asserts: & of something that is not an lvalue is refused
 */
BEGIN
{
	trace(&1);
}
