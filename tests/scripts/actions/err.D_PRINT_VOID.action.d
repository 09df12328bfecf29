/*
 * Asserts: print( ) of a void value (an action's) is refused
 */
BEGIN
{
	print(trace(1));
}
