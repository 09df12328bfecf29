/*
 * Asserts: ustack() takes a frame count and a string size at most
 */
BEGIN
{
	ustack(3, 100, 5);
}
