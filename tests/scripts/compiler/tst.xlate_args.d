/*
 * requires: root
 * Asserts: translated probe arguments compile in every place a value of
 * the member's type goes (predicates, keys, printf, stringof, string
 * comparison), several in one clause, beside untranslated ones (args[2]
 * of signal-send is the signal, read from its own argument); curcpu is
 * a cpuinfo_t * of this CPU.
 */
proc:::signal-send
/args[1]->pr_pid != 0 && args[2] > 0 && stringof(args[1]->pr_fname) != ""/
{
	@[args[1]->pr_fname, args[0]->pr_lwpid, args[2]] = count();
	printf("%d %s %s %c", args[1]->pr_ppid, args[1]->pr_psargs,
	    args[0]->pr_name, args[0]->pr_sname);
}

sched:::enqueue
{
	@q[args[2]->cpu_id, args[2]->cpu_chip, args[2]->cpu_lgrp] = count();
}

BEGIN
{
	exit(curcpu->cpu_id == cpu && curcpu->cpu_chip == chip &&
	    curcpu->cpu_lgrp == lgrp && curcpu->cpu_pset == pset ? 0 : 1);
}
