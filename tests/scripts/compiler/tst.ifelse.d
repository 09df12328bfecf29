/*
 * Asserts: if/else over expression statements takes the right branch,
 * nested else-if chains included.
 */
#pragma D option quiet

BEGIN
{
	n = 5;
	if (n > 3) {
		r = 1;
	} else {
		r = 2;
	}
	if (n < 3)
		q = 1;
	else if (n == 5)
		q = 2;
	else
		q = 3;
	if (n == 0)
		z = 9;
	printf("%d %d %d\n", r, q, z);
	exit(0);
}
