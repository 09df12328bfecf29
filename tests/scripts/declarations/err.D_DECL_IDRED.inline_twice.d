/*
 * Asserts: one program may not define the same inline twice
 */
inline int limit = 10;
inline int limit = 20;

BEGIN
{
	exit(0);
}
