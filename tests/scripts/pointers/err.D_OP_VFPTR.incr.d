/*
 * Asserts: ++ of a void pointer is refused (no size to step by)
 */
BEGIN
{
	this->v = (void *)0;
	this->v++;
}
