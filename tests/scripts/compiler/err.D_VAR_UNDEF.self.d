/*
 * Asserts: reading a thread-local that nothing has assigned or declared
 * is refused (dtrace: "self->x has not yet been declared or assigned")
 */
BEGIN
{
	trace(self->x);
}
