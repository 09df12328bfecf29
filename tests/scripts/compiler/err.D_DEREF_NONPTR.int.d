/*
 * Asserts: dereferencing an integer is refused
 */
BEGIN
{
	trace(*pid);
}
