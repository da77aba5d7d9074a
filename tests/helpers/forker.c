/*
 * Test workload: leaves a sleeping grandchild behind and exits at once,
 * after printing the grandchild's pid. With --setsid the grandchild is a
 * daemon in a session of its own (fork, setsid, fork), outside the
 * workload's process group.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int daemonize = argc > 1 && !strcmp(argv[1], "--setsid");
	pid_t mid, pid;

	fflush(stdout);
	mid = fork();
	if (mid < 0)
		return 1;
	if (mid == 0) {
		if (daemonize)
			setsid();
		pid = fork();
		if (pid == 0) {
			sleep(30);
			_exit(0);
		}
		printf("%d\n", (int)pid);
		fflush(stdout);
		_exit(pid < 0);
	}
	waitpid(mid, NULL, 0);
	return 0;
}
