/*
 * Asserts: if/else bodies may hold actions and aggregations: the clause
 * is split into pieces that run in order on the same firing.
 */
#pragma D option quiet

BEGIN
{
	x = 5;
	if (x > 3) {
		printf("big %d\n", x);
		@n["big"] = count();
	} else {
		printf("small\n");
	}
	printf("after\n");
	if (x == 1)
		printf("never\n");
	else if (x == 5)
		printf("five\n");
}

BEGIN
{
	exit(0);
}
