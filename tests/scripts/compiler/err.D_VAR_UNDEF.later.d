/*
 * Asserts: variables come into being in program order: a thread-local
 * first assigned by a later clause may not be read by an earlier one
 */
syscall::read:return
/self->ts/
{
	trace(timestamp - self->ts);
}

syscall::read:entry
{
	self->ts = timestamp;
}
