/* asserts: normalize() divides printed values; denormalize() undoes it */
BEGIN
{
	@a["x"] = sum(3000);
	@b["y"] = sum(4000);
}

BEGIN
{
	normalize(@a, 1000);
	normalize(@b, 1000);
	denormalize(@b);
	exit(0);
}
