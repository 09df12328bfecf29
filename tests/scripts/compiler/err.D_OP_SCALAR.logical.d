/*
 * Asserts: && needs scalar operands
 */
struct s { int a; };
BEGIN
{
	p = (struct s *)alloca(4);
	trace(*p && 1);
}
