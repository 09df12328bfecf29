/*
 * Asserts: print( ) of a translated pointer is refused
 */
BEGIN
{
	print(curpsinfo);
}
