/*
 * Asserts: this-> variables carry values between clauses for the same
 * probe firing and start at zero for each new firing.
 */
#pragma D option quiet

BEGIN
{
	this->x = 5;
	i = 0;
}

BEGIN
{
	trace(this->x);
}

tick-1ms
/i < 2/
{
	printf("\n%d", this->x);
	this->x = 9;
}

tick-1ms
/i++ < 2/
{
	printf(" %d", this->x);
}

tick-1ms
/i == 3/
{
	printf("\n%d\n", this->x);
	exit(0);
}
