/*
 * requires: root
 * Asserts: trace( ) of a translated probe argument (proc:::create's
 * args[0], a psinfo_t * translated from the provider's native type) is
 * refused as a translated pointer, as trace(curpsinfo) is.
 */
proc:::create
{
	trace(args[0]);
}
