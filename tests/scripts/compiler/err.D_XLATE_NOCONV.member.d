/*
 * Asserts: a translator member must be defined
 */
struct out { int a; int b; };
translator struct out < int64_t x > { a = x; };
BEGIN
{
	trace(xlate<struct out>(1).b);
}
