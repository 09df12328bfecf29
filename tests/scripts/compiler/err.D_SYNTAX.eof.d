/*
 * Asserts: an unclosed clause is a syntax error near end of input
 */
BEGIN
{
	trace(1);
