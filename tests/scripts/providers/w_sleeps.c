/* w_sleeps.c - sleep 2 ms thirty times (each sleep is an off-cpu and an
 * on-cpu). */
#include <unistd.h>

int main(void)
{
	for (int i = 0; i < 30; i++)
		usleep(2000);
	return 0;
}
