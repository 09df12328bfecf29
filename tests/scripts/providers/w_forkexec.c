/* w_forkexec.c - fork three children; each execs /bin/sh -c "exit N"
 * (N = 3, 4, 5); wait for them and exit 9. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	for (int i = 3; i <= 5; i++) {
		char cmd[16];
		pid_t kid = fork();

		if (kid == 0) {
			snprintf(cmd, sizeof(cmd), "exit %d", i);
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
			_exit(127);
		}
		waitpid(kid, NULL, 0);
	}
	return 9;
}
