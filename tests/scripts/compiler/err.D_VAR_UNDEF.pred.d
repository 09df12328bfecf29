/*
 * Asserts: the predicate is checked after the clause's actions, but the
 * actions' own reads come first: a variable the predicate reads that no
 * action assigns (only reads) is refused
 */
BEGIN
/self->seen == 0/
{
	trace(self->seen);
}
