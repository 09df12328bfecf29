/*
 * Asserts: associative array keys may themselves be array elements,
 * nested several deep (the register for each element is taken once its
 * keys are evaluated)
 */
#pragma D option quiet

BEGIN
{
	t[1, 2, 3] = 1234;
	t[3, 2, 3] = 4321;
	t[3, 2, 1] = 2;
	printf("%d\n", t[1, t[3, t[3, t[3, t[3, 2, 1], 1], 1], 1], 3]);
	printf("%d\n", t[3, t[3, 2, 1], t[3, t[3, 2, 1], 1] + 1]);
	exit(0);
}
