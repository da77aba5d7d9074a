/*
 * A program that does what daemons do, for tests/cli/tiermem-daemon.sh:
 * after its first large allocation it closes every descriptor from 3 up
 * (the runtime's among them), takes the lowest numbers again for a pipe
 * of its own, fills every other number up to 1023 with copies of it (so
 * any number the runtime kept is the program's now), then talks to itself
 * through the pipe while it keeps touching its managed memory, and checks
 * that the pipe carried exactly what it wrote, no byte more or less, and
 * that its memory still holds what it wrote there.
 *
 *   daemon [close-range|loop] [ROUNDS]
 *
 * close-range: close_range(3, ~0U); loop: close() of 3..1023 one by one.
 * Exit 0 when all is well; the failure said on stderr otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BIG (64u << 20)

static void touch(volatile uint64_t *m, size_t n, uint64_t round)
{
	for (size_t i = 0; i < n; i += 4096 / sizeof(*m))
		m[i] = round * 1000003 + i;
}

static int check(volatile uint64_t *m, size_t n, uint64_t round)
{
	for (size_t i = 0; i < n; i += 4096 / sizeof(*m))
		if (m[i] != round * 1000003 + i)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	int by_range = argc < 2 || strcmp(argv[1], "loop"), rounds = argc > 2 ? atoi(argv[2]) : 300, p[2];
	size_t n = BIG / sizeof(uint64_t);
	volatile uint64_t *m = malloc(BIG);
	struct timespec pause = { 0, 1000000 };
	uint64_t sent = 0, got = 0;

	if (!m)
		return perror("malloc"), 1;
	/* a few ticks with the memory in use, so that the sampler is running (and may be armed) */
	for (int i = 0; i < 30; i++) {
		touch(m, n, 1);
		nanosleep(&pause, NULL);
	}
	if (by_range) {
		if (close_range(3, ~0U, 0))
			return perror("close_range"), 1;
	} else {
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	}
	if (pipe(p))
		return perror("pipe"), 1;
	for (int fd = 3; fd < 1024; fd++)
		if (fd != p[0] && fd != p[1] && fcntl(fd, F_GETFD) < 0 && dup2(p[1], fd) < 0 && errno != EBADF)
			break;
	for (int r = 2; r < rounds + 2; r++) {
		char msg[64], back[64];
		int len = snprintf(msg, sizeof(msg), "round %d\n", r);
		ssize_t k;

		touch(m, n, (uint64_t)r);
		if (write(p[1], msg, (size_t)len) != len)
			return perror("write"), 1;
		sent += (uint64_t)len;
		k = read(p[0], back, (size_t)len);
		if (k != len || memcmp(msg, back, (size_t)len)) {
			fprintf(stderr, "daemon: round %d: read %zd bytes '%.*s', wrote '%.*s'\n", r, k,
				k > 0 ? (int)k : 0, back, len - 1, msg);
			return 1;
		}
		got += (uint64_t)k;
		if (check(m, n, (uint64_t)r)) {
			fprintf(stderr, "daemon: round %d: managed memory lost what was written\n", r);
			return 1;
		}
		nanosleep(&pause, NULL);
	}
	/* nothing else came through the pipe: no byte of anyone else's */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != p[0])
			close(fd);
	{
		char rest[256];
		ssize_t k = read(p[0], rest, sizeof(rest));

		if (k != 0) {
			fprintf(stderr, "daemon: %zd more bytes in the pipe than it wrote\n", k);
			return 1;
		}
	}
	printf("daemon: %d rounds, %llu bytes through the pipe and back, memory intact\n", rounds,
	       (unsigned long long)got);
	return sent == got ? 0 : 1;
}
