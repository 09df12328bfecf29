/*
 * Asserts: a probe description with five fields is refused
 */
a:b:c:d:e
{
	trace(1);
}
