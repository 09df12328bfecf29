/*
 * Asserts: a compound assignment reads its variable first: on a
 * thread-local never assigned it is refused (++ would create it)
 */
BEGIN
{
	self->n += 2;
}
