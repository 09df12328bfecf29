/*
 * asserts: size options take k/m/g suffixes
 * dtrace-flags: -q -b 2m -x aggsize=1m -x dynvarsize=512k -x specsize=64k -x nspec=2
 */
BEGIN
{
	printf("ok\n");
	exit(0);
}
