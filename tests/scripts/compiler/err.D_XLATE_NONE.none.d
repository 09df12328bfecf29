/*
 * Asserts: xlate needs a translator
 */
struct out { int a; };
BEGIN
{
	trace(xlate<struct out>(1).a);
}
