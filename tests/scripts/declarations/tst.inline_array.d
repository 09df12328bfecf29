/*
 * Asserts: an inline may take keys like an associative array; each use
 * substitutes the values given, converted to the keys' types (a char
 * key keeps its low byte)
 */
#pragma D option quiet

inline int area[int w, int h] = w * h;
inline int twice[char v] = v * 2;

BEGIN
{
	printf("%d %d %d\n", area[3, 4], area[area[1, 2], 5], twice[0x141]);
	exit(0);
}
