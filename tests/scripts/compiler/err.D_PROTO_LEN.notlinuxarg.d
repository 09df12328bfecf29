/*
 * Asserts: the arguments of a function Linux lacks are checked before the
 * function is refused: trace( ) inside it has too few arguments
 */
BEGIN
{
	rw_read_held(trace());
}
