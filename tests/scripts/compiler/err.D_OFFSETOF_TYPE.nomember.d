/*
 * Asserts: offsetof needs a member of a struct
 */
struct s { int a; };
BEGIN
{
	trace(offsetof(struct s, b));
}
