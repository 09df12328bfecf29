/*
 * Asserts: stack() takes one frame count at most
 */
BEGIN
{
	stack(3, 4);
}
