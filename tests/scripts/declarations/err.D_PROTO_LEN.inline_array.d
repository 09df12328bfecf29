/*
 * Asserts: an inline with keys is given exactly that many
 */
inline int area[int w, int h] = w * h;

BEGIN
{
	trace(area[3]);
}
