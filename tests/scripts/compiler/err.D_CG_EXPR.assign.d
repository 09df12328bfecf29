/*
 * Asserts: the value of an action is refused where code is made for it
 * ("tracing function trace( ) may not be called from a D expression")
 */
BEGIN
{
	x = trace(1);
}
