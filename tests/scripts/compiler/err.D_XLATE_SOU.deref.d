/*
 * Asserts: a translated pointer dereferenced whole (a psinfo_t value) is
 * refused with a tag and a message, not an internal error: dtrace builds
 * the translated struct; here a translation is only read a member at a time
 */
BEGIN
{
	trace(*curpsinfo);
}
