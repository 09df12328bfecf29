/*
 * Asserts: a function Linux lacks still has its prototype's argument
 * count checked first (D_PROTO_LEN, not D_FUNC_UNDEF)
 */
BEGIN
{
	mutex_owned(1, 2);
}
