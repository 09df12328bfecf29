/* asserts: speculative output beyond specsize is a speculative drop */
#pragma D option specsize=64
#pragma D option strsize=256
BEGIN
{
	self->s = speculation();
}

BEGIN
{
	speculate(self->s);
	trace("too big for the speculation buffer");
}

BEGIN
{
	commit(self->s);
}

BEGIN
{
	exit(0);
}
