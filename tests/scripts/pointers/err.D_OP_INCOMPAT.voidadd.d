/*
 * Asserts: void * + int is refused: operands have incompatible types
 */
BEGIN
{
	this->v = (void *)0;
	trace(this->v + 1);
}
