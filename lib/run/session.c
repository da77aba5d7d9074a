/*
 * Sessions (see session.h).
 */
#include "run/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "util/error.h"

void tl_session_key(char key[17])
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		/* no entropy yet (early boot): unique enough on one host for one database */
		clock_gettime(CLOCK_REALTIME, &ts);
		r = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
	}
	snprintf(key, 17, "%016llx", (unsigned long long)r);
}

static bool key_ok(const char *k)
{
	size_t n = strlen(k);

	return n && n <= 64 && strspn(k, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") == n;
}

int tl_session_check(void)
{
	const char *given = getenv(TL_SESSION_VAR);

	if (given && *given && !key_ok(given))
		return error("%s '%s': a session key is 1-64 letters, digits, '_' or '-'", TL_SESSION_VAR, given),
		       -EINVAL;
	return 0;
}

int tl_session_begin(struct tl_store *st, const char *command_line, int64_t *id)
{
	const char *given = getenv(TL_SESSION_VAR);
	struct utsname u;
	char fresh[17];
	struct tl_session_record s = { .command = command_line };
	int rc = tl_session_check();

	if (rc)
		return rc;
	if (given && *given) {
		s.key = given;
	} else {
		tl_session_key(fresh);
		s.key = fresh;
	}
	if (!uname(&u))
		s.host = u.nodename;
	return tl_store_add_session(st, &s, id);
}
