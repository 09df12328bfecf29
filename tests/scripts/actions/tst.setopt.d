/*
 * asserts: setopt() changes a runtime option while tracing (aggsortrev)
 */
BEGIN
{
	@a["a"] = sum(1);
	@a["b"] = sum(2);
	setopt("aggsortrev");
	exit(0);
}
