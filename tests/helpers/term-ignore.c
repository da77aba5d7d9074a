/* Test workload: ignores SIGTERM and sleeps, so only SIGKILL ends it. */
#include <signal.h>
#include <unistd.h>

int main(void)
{
	signal(SIGTERM, SIG_IGN);
	for (int i = 0; i < 60; i++)
		sleep(1);
	return 0;
}
