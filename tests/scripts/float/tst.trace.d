/*
 * Asserts: a float or double value may be traced (trace() prints the
 * record by its size, as dtrace does)
 */
float f;
double d;

BEGIN
{
	trace(f);
	trace(d);
	exit(0);
}
