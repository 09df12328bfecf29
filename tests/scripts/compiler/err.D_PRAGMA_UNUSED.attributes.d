/*
 * Asserts: #pragma D attributes naming nothing declared is refused; the
 * name is the whole word, so "y;" is not y
 */
int y;

#pragma D attributes Stable/Stable/Common y;

BEGIN
{
	exit(0);
}
