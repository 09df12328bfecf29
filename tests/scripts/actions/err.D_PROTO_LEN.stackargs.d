/*
 * Asserts: stack() takes one frame count at most (a prototype length
 * error, "at most 1 expected")
 */
BEGIN
{
	stack(3, 4);
}
