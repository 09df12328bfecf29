/*
 * Asserts: -> through a pointer to a struct only declared is refused
 * ("no struct s definition is available")
 */
struct s;

BEGIN
{
	trace(((struct s *)0)->a);
}
