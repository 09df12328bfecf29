/*
 * asserts: switchrate, aggrate, statusrate, cleanrate take dtrace units
 * dtrace-flags: -q -x switchrate=10hz -x aggrate=100ms -x statusrate=1s -x cleanrate=50hz
 */
int i;

tick-10ms
{
	i++;
}

tick-10ms
/i == 3/
{
	printf("ok\n");
	exit(0);
}
