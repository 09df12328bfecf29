/*
 * Asserts: a void * may not be dereferenced (D_DEREF_VOID, not the
 * non-pointer error)
 */
void *where;
int cells[2];

BEGIN
{
	where = &cells[1];
	trace(*where);
}
