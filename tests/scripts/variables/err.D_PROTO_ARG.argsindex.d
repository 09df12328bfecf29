/*
 * Asserts: args[] takes one integer constant index: a string (or a
 * variable) is refused against its prototype
 */
BEGIN
{
	trace(args["first"]);
}
