/* w_desc.c - tst.descendants.sh's workload: its first fork()ed child
 * execs TRUE; its second forks a grandchild, and both exit; then it
 * execs TRUE itself.  Each waits for its children, so the order of the
 * forks, execs and exits is fixed.
 * usage: w_desc TRUE */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t c;

	if (argc != 2)
		return 2;
	if ((c = fork()) == 0) {
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	waitpid(c, NULL, 0);
	if ((c = fork()) == 0) {
		pid_t g = fork();

		if (g == 0)
			_exit(0);
		waitpid(g, NULL, 0);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	execl(argv[1], argv[1], (char *)NULL);
	return 127;
}
