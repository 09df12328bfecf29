/*
 * requires: root
 * Asserts: a member of psinfo_t the translator from the provider's task
 * does not define is refused through args[], as through xlate<>.
 */
proc:::signal-send
{
	trace(args[1]->pr_start);
}
