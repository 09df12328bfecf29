/*
 * Asserts: an aggregating function alone as a statement is refused
 * ("aggregating function avg( ) may not be called from a D expression")
 */
BEGIN
{
	avg(1);
}
