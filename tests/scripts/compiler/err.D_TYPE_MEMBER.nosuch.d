/*
 * Asserts: a member must exist
 */
struct s { int a; };
BEGIN
{
	p = (struct s *)alloca(4);
	trace(p->b);
}
