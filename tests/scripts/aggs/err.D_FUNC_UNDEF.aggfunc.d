/*
 * Asserts: assigning an aggregation the result of an unknown function
 * names the function as undefined (it is cooked first)
 */
BEGIN
{
	@calls["x"] = nosuchagg();
}
