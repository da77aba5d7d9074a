/*
 * Fault injection for tierlab itself, in the spirit of SQLite's test VFS
 * and jq's inject_errors.c: an LD_PRELOAD shim that counts the calls of
 * one kind of operation and makes the Nth fail, as a full disk, a bad
 * disk or a full memory would.
 *
 *   TLFI_POINT=malloc TLFI_FAIL=N   fail the Nth call of that point (once;
 *                                   TLFI_PERSIST=1: that one and every later one)
 *   TLFI_OUT=FILE                   at exit, "POINT COUNT" a line for every
 *                                   point; when a call was failed, also
 *                                   "failed POINT N" and its backtrace
 *
 * The points and the error each fails with:
 *   write        write(2) not from SQLite                  ENOSPC
 *   fsync        fsync(2), fdatasync(2)                    EIO
 *   rename       rename(2), renameat(2)                    EIO
 *   malloc       malloc, calloc, realloc                   ENOMEM (NULL)
 *   sqlite-open  open(2) and openat(2) from SQLite         EIO
 *   sqlite-read  read(2), pread(2) from SQLite             EIO
 *   sqlite-write write(2), pwrite(2), ftruncate(2) from SQLite  ENOSPC
 *
 * Only the tierlab process counts: not its children before exec (another
 * pid), nor the programs it runs (another executable), which inherit
 * LD_PRELOAD. "From SQLite" means the caller's code is in libsqlite3.
 * stdio writes through glibc's internal entry points, which no preload
 * sees: a failed stdout shows only through the streams themselves.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define POINTS(X) \
	X(WRITE, "write", ENOSPC) \
	X(FSYNC, "fsync", EIO) \
	X(RENAME, "rename", EIO) \
	X(MALLOC, "malloc", ENOMEM) \
	X(SQLITE_OPEN, "sqlite-open", EIO) \
	X(SQLITE_READ, "sqlite-read", EIO) \
	X(SQLITE_WRITE, "sqlite-write", ENOSPC)

enum point {
#define P_ENUM(id, name, err) P_##id,
	POINTS(P_ENUM)
#undef P_ENUM
	P__COUNT
};
static const char *const point_names[P__COUNT] = {
#define P_NAME(id, name, err) name,
	POINTS(P_NAME)
#undef P_NAME
};
static const int point_errno[P__COUNT] = {
#define P_ERR(id, name, err) err,
	POINTS(P_ERR)
#undef P_ERR
};

static unsigned long counts[P__COUNT];
static int active;		/* this is the tierlab process */
static pid_t owner;
static int target = -1;		/* the point to fail */
static unsigned long fail_at;	/* its call number, from 1 */
static int persist;
static unsigned long failed_at;	/* the call that was failed, 0 = none yet */
static void *failed_trace[32];
static int failed_depth;
static __thread int inside;	/* the shim's own calls (dladdr, backtrace) are not counted */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* The next definitions of the calls, found without allocating: dlsym may call calloc. */
#define NEXT(ret, name, args) static ret(*next_##name) args
NEXT(ssize_t, write, (int, const void *, size_t));
NEXT(ssize_t, read, (int, void *, size_t));
NEXT(ssize_t, pwrite, (int, const void *, size_t, off_t));
NEXT(ssize_t, pwrite64, (int, const void *, size_t, off_t));
NEXT(ssize_t, pread, (int, void *, size_t, off_t));
NEXT(ssize_t, pread64, (int, void *, size_t, off_t));
NEXT(int, fsync, (int));
NEXT(int, fdatasync, (int));
NEXT(int, rename, (const char *, const char *));
NEXT(int, renameat, (int, const char *, int, const char *));
NEXT(int, ftruncate, (int, off_t));
NEXT(int, ftruncate64, (int, off_t));
NEXT(int, open, (const char *, int, ...));
NEXT(int, open64, (const char *, int, ...));
NEXT(int, openat, (int, const char *, int, ...));
NEXT(int, openat64, (int, const char *, int, ...));

#define RESOLVE(name) (next_##name ?: (*(void **)&next_##name = dlsym(RTLD_NEXT, #name), next_##name))

/* Is the caller's code in libsqlite3? */
static bool from_sqlite(void *ret)
{
	Dl_info info;
	bool yes;

	inside++;
	yes = dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, "libsqlite3");
	inside--;
	return yes;
}

/* Counts a call of point p; true when this one must fail (errno is then set). */
static bool hit(enum point p)
{
	unsigned long n;

	if (!active || inside || getpid() != owner)
		return false;
	n = __atomic_add_fetch(&counts[p], 1, __ATOMIC_RELAXED);
	if ((int)p != target || n < fail_at || (n > fail_at && !persist))
		return false;
	if (!failed_at) {
		failed_at = n;
		inside++;
		failed_depth = backtrace(failed_trace, 32);
		inside--;
	}
	errno = point_errno[p];
	return true;
}

static void report(void)
{
	const char *out = getenv("TLFI_OUT");
	FILE *f;

	if (!active || getpid() != owner || !out || !*out)
		return;
	inside++;
	f = fopen(out, "w");
	if (f) {
		for (int p = 0; p < P__COUNT; p++)
			fprintf(f, "%s %lu\n", point_names[p], counts[p]);
		if (failed_at) {
			fprintf(f, "failed %s %lu\n", point_names[target], failed_at);
			fflush(f);
			backtrace_symbols_fd(failed_trace, failed_depth, fileno(f));
		}
		fclose(f);
	}
	inside--;
}

__attribute__((constructor)) static void init(void)
{
	const char *point = getenv("TLFI_POINT"), *n = getenv("TLFI_FAIL"), *p = getenv("TLFI_PERSIST");
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return;
	exe[len] = '\0';
	if (len < 8 || strcmp(exe + len - 8, "/tierlab"))
		return;
	for (int i = 0; point && i < P__COUNT; i++)
		if (!strcmp(point, point_names[i]))
			target = i;
	fail_at = n ? strtoul(n, NULL, 10) : 0;
	if (!fail_at)
		target = -1;
	persist = p && *p == '1';
	owner = getpid();
	active = 1;
	atexit(report);
}

void *malloc(size_t size)
{
	return hit(P_MALLOC) ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	return hit(P_MALLOC) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size)
{
	return hit(P_MALLOC) ? NULL : __libc_realloc(ptr, size);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (hit(from_sqlite(__builtin_return_address(0)) ? P_SQLITE_WRITE : P_WRITE))
		return -1;
	return RESOLVE(write)(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (hit(from_sqlite(__builtin_return_address(0)) ? P_SQLITE_WRITE : P_WRITE))
		return -1;
	return RESOLVE(pwrite)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	if (hit(from_sqlite(__builtin_return_address(0)) ? P_SQLITE_WRITE : P_WRITE))
		return -1;
	return RESOLVE(pwrite64)(fd, buf, n, off);
}

int ftruncate(int fd, off_t len)
{
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_WRITE))
		return -1;
	return RESOLVE(ftruncate)(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_WRITE))
		return -1;
	return RESOLVE(ftruncate64)(fd, len);
}

ssize_t read(int fd, void *buf, size_t n)
{
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_READ))
		return -1;
	return RESOLVE(read)(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_READ))
		return -1;
	return RESOLVE(pread)(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_READ))
		return -1;
	return RESOLVE(pread64)(fd, buf, n, off);
}

int fsync(int fd)
{
	return hit(P_FSYNC) ? -1 : RESOLVE(fsync)(fd);
}

int fdatasync(int fd)
{
	return hit(P_FSYNC) ? -1 : RESOLVE(fdatasync)(fd);
}

int rename(const char *from, const char *to)
{
	return hit(P_RENAME) ? -1 : RESOLVE(rename)(from, to);
}

int renameat(int dfrom, const char *from, int dto, const char *to)
{
	return hit(P_RENAME) ? -1 : RESOLVE(renameat)(dfrom, from, dto, to);
}

/* open's mode is there only with O_CREAT or O_TMPFILE. */
#define OPEN_BODY(name, call)                                                      \
	mode_t mode = 0;                                                           \
	if (flags & (O_CREAT | O_TMPFILE)) {                                       \
		va_list ap;                                                        \
		va_start(ap, flags);                                               \
		mode = (mode_t)va_arg(ap, int);                                    \
		va_end(ap);                                                        \
	}                                                                          \
	if (from_sqlite(__builtin_return_address(0)) && hit(P_SQLITE_OPEN))        \
		return -1;                                                         \
	return call

int open(const char *path, int flags, ...)
{
	OPEN_BODY(open, RESOLVE(open)(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
	OPEN_BODY(open64, RESOLVE(open64)(path, flags, mode));
}

int openat(int dir, const char *path, int flags, ...)
{
	OPEN_BODY(openat, RESOLVE(openat)(dir, path, flags, mode));
}

int openat64(int dir, const char *path, int flags, ...)
{
	OPEN_BODY(openat64, RESOLVE(openat64)(dir, path, flags, mode));
}
