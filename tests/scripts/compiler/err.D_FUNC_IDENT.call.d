/*
 * Asserts: only an identifier can be called ("function designator is not
 * of function type")
 */
BEGIN
{
	x = 1;
	trace((x + 1)("a"));
}
