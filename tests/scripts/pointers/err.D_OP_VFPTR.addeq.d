/*
 * Asserts: += on a void pointer is refused
 */
BEGIN
{
	this->v = (void *)0;
	this->v += 4;
}
