/*
 * Asserts: trace( ) of a translated pointer is refused ("trace( ) may not
 * be applied to a translated pointer")
 */
BEGIN
{
	trace(curpsinfo);
}
