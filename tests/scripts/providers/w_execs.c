/* w_execs.c - w_execs PATH N [PATH N ...]: fork a child that execs
 * PATH, wait for it, N times for each PATH (tst.agg_tpstr.sh). */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int a = 1; a + 1 < argc; a += 2) {
		for (int i = 0; i < atoi(argv[a + 1]); i++) {
			pid_t kid = fork();

			if (kid == 0) {
				execl(argv[a], argv[a], (char *)NULL);
				_exit(127);
			}
			if (kid < 0 || waitpid(kid, NULL, 0) != kid)
				return 1;
		}
	}
	return 0;
}
