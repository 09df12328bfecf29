/* asserts: committed speculative output appears, discarded does not */
BEGIN
{
	self->a = speculation();
	self->b = speculation();
}

BEGIN
{
	speculate(self->a);
	printf("committed\n");
}

BEGIN
{
	speculate(self->b);
	printf("discarded\n");
}

BEGIN
{
	commit(self->a);
	discard(self->b);
}

BEGIN
{
	exit(0);
}
