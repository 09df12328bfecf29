/*
 * requires: root
 * Asserts: a translated probe argument (sched:::off-cpu's args[1], a
 * psinfo_t *) used as a value rather than through a member is refused:
 * only its members are translated.
 */
sched:::off-cpu
{
	p = args[1];
}
