/* asserts: trunc(@, 1) keeps the largest value; trunc(@) empties */
BEGIN
{
	@a["x"] = sum(1);
	@a["y"] = sum(3);
	@a["z"] = sum(2);
	@b["x"] = count();
}

BEGIN
{
	trunc(@a, 1);
	trunc(@b);
	exit(0);
}
