/*
 * Asserts: letters after an integer start the next token, as in dtrace:
 * "10ms" is 10 then ms, a syntax error
 */
BEGIN
{
	trace(10ms);
}
