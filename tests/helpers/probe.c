/*
 * Test workload: reports what it was started with, one "key: value" line
 * each: an environment variable, the working directory, the memory policy,
 * the CPUs it may run on, the disposition of SIGUSR1, whether SIGUSR2 is
 * blocked, what its stdin is and its open fds. Usage: probe [VAR]
 */
#include <dirent.h>
#include <numaif.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *var = argc > 1 ? getenv(argv[1]) : NULL;
	unsigned long mask[16] = { 0 };
	char cwd[4096], in[4096];
	ssize_t n;
	int mode = -1;
	cpu_set_t cpus;
	struct sigaction sa;
	sigset_t blocked;
	DIR *d;
	struct dirent *e;

	printf("env: %s\n", var ? var : "(unset)");
	printf("cwd: %s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
	if (get_mempolicy(&mode, mask, sizeof(mask) * 8, NULL, 0))
		perror("get_mempolicy");
	printf("mempolicy: %d %#lx\n", mode, mask[0]);
	sched_getaffinity(0, sizeof(cpus), &cpus);
	printf("cpus:");
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cpus))
			printf(" %d", c);
	printf("\n");
	sigaction(SIGUSR1, NULL, &sa);
	printf("sigusr1: %s\n", sa.sa_handler == SIG_DFL ? "default" : "changed");
	sigprocmask(SIG_SETMASK, NULL, &blocked);
	printf("sigusr2: %s\n", sigismember(&blocked, SIGUSR2) ? "blocked" : "unblocked");
	n = readlink("/proc/self/fd/0", in, sizeof(in) - 1);
	in[n > 0 ? n : 0] = '\0';
	printf("stdin: %s\n", in);
	printf("fds:");
	d = opendir("/proc/self/fd");
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			printf(" %s", e->d_name);
	printf("\n");
	if (d)
		closedir(d);
	return 0;
}
