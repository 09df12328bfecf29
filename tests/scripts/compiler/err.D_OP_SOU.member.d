/*
 * Asserts: -> needs a struct or union
 */
BEGIN
{
	p = (int *)alloca(4);
	trace(p->x);
}
