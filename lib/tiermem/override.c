/*
 * The malloc API, all of it in one file (as mimalloc's alloc-override.c).
 * Requests below the threshold go straight to the next allocator in the
 * link chain (glibc, jemalloc, ...), resolved once with dlsym(RTLD_NEXT)
 * and without a lock on that path; requests at or above it come from the
 * runtime's managed regions (core.c), and fall back to the next allocator
 * when the runtime cannot serve them. A pointer is ours when it lies in the
 * runtime's reservation; everything else goes to the next allocator.
 *
 * Start-up: dlsym may itself call calloc/malloc/free before the next
 * allocator is known; such calls are served from a small static buffer,
 * whose pointers free() recognises and ignores, and those made once its
 * malloc, free, calloc and realloc are known by the next allocator. When
 * the buffer was never used (glibc's dlsym allocates only for a name it
 * cannot find), free's only check is the runtime's reservation. While a thread runs
 * runtime code (tlrt_in_rt), its own allocations are never managed, so the
 * runtime cannot recurse into itself. Nothing is managed before this
 * library's constructor has run: libraries initialised earlier (libstdc++
 * under jemalloc allocates its exception pool then) would otherwise start
 * the runtime before libnuma's own constructor, and libnuma exits the
 * program on its first node mask.
 *
 * C++'s operators new and delete are interposed too (their mangled names,
 * as mimalloc's alloc-override.c does): jemalloc and mimalloc define their
 * own, which would otherwise take every `new` past the runtime. A small
 * request goes to the next allocator's operator of the same kind (which
 * throws or calls the new-handler as it does without the runtime), or,
 * when the next operator new is libstdc++'s (it calls malloc: glibc),
 * straight to the next malloc, and to that operator only when malloc
 * fails. A large one is managed, else the next operator serves it.
 *
 * errno and return values follow glibc: ENOMEM on failure, overflow checks
 * in calloc/reallocarray/pvalloc, realloc(p, 0) frees and returns NULL,
 * invalid alignments are left to the next allocator to reject exactly as
 * it does.
 */
#include "tiermem/rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RETADDR ((uintptr_t)__builtin_return_address(0))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

extern char **environ;

static void free_first(void *p);
static void free_unless_boot(void *p);
static int cxx_resolve(void);

/* free starts as free_first: free() calls it without checking that it is resolved. */
static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
} next = { .free = free_first };

enum { OV_NONE, OV_RESOLVING, OV_DONE };
static _Atomic int ov_state;
static __thread int ov_resolving __attribute__((tls_model("initial-exec")));
/*
 * Requests below it go to the next allocator. 0 until the next allocator
 * is resolved, so the fast paths need no check of their own that it is;
 * SIZE_MAX: nothing is managed.
 */
static _Atomic size_t ov_threshold;
static _Atomic int ov_loaded;	/* our constructor ran, so libnuma's did */
static void (*real_free)(void *);	/* the next allocator's free */

/* The bootstrap buffer: a bump allocator for the calls dlsym makes. */
static _Alignas(64) char boot[64 * 1024];
static _Atomic size_t boot_used;

static void *boot_alloc(size_t n, size_t align)
{
	size_t start, end, old = atomic_load(&boot_used);
	uintptr_t base = (uintptr_t)boot;

	if (align < 16)
		align = 16;
	do {
		start = (base + old + sizeof(size_t) + align - 1) / align * align - base;
		if (n > sizeof(boot) || start + n > sizeof(boot)) {
			errno = ENOMEM;
			return NULL;
		}
		end = start + n;
	} while (!atomic_compare_exchange_weak(&boot_used, &old, end));
	memcpy(boot + start - sizeof(size_t), &n, sizeof(size_t));
	return boot + start;	/* static storage: zero, and never reused */
}

static int is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot < sizeof(boot);
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const char *)p - sizeof(size_t), sizeof(size_t));
	return n;
}

static void *sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void ov_init(void)
{
	int expected = OV_NONE;

	if (ov_resolving)
		return;		/* dlsym calling back: the caller uses the bootstrap buffer */
	if (!atomic_compare_exchange_strong(&ov_state, &expected, OV_RESOLVING)) {
		while (atomic_load(&ov_state) != OV_DONE)
			sched_yield();
		return;
	}
	ov_resolving = 1;
	next.malloc = sym("malloc");
	real_free = (void (*)(void *))sym("free");
	__atomic_store_n(&next.free, real_free ? free_unless_boot : NULL, __ATOMIC_RELEASE);
	next.calloc = sym("calloc");
	next.realloc = sym("realloc");
	next.memalign = sym("memalign");
	next.posix_memalign = sym("posix_memalign");
	next.aligned_alloc = sym("aligned_alloc");
	next.valloc = sym("valloc");
	next.pvalloc = sym("pvalloc");
	next.malloc_usable_size = sym("malloc_usable_size");
	if (next.malloc)
		cxx_resolve();
	ov_resolving = 0;
	if (!next.malloc || !real_free || !next.calloc || !next.realloc) {
		static const char msg[] = "tiermem: no next allocator (dlsym(RTLD_NEXT, \"malloc\") failed)\n";

		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			/* nowhere to say it */
		}
		_exit(127);
	}
	/*
	 * Nothing of the bootstrap buffer handed out (dlsym allocated nothing
	 * before the four were known, as glibc's does not): no pointer of it
	 * can come back, and free goes straight to the next allocator's.
	 */
	if (!atomic_load(&boot_used))
		__atomic_store_n(&next.free, real_free, __ATOMIC_RELEASE);
	/* released after next: a thread that sees a threshold above 0 calls it */
	atomic_store_explicit(&ov_threshold, tlrt_setup(environ) == 0 ? (size_t)tlrt_threshold() : SIZE_MAX,
			      memory_order_release);
	atomic_store(&ov_state, OV_DONE);
}

/*
 * next.free while blocks of the bootstrap buffer may be out: those stay
 * where they are. free loaded next.free relaxed; loading it again with
 * acquire orders this thread after the store of real_free before it.
 */
static void free_unless_boot(void *p)
{
	if (unlikely(is_boot(p)))
		return;
	(void)__atomic_load_n(&next.free, __ATOMIC_ACQUIRE);
	real_free(p);
}

/*
 * dlsym calling back once malloc, free, calloc and realloc are known (its
 * error strings, for the names the next allocator lacks): served by the
 * next allocator, so that no bootstrap block need be told apart at free.
 */
static inline int resolving_with_next(void)
{
	return ov_resolving && next.realloc;
}

/* A free before anything was resolved (a library that loaded us late): resolve, then free. */
static void free_first(void *p)
{
	void (*f)(void *);

	ov_init();
	f = __atomic_load_n(&next.free, __ATOMIC_ACQUIRE);
	if (f && f != free_first)
		f(p);
}

static inline int ready(void)
{
	if (likely(atomic_load_explicit(&ov_state, memory_order_acquire) == OV_DONE))
		return 1;
	ov_init();
	return atomic_load(&ov_state) == OV_DONE;
}

static inline size_t threshold(void)
{
	return atomic_load_explicit(&ov_threshold, memory_order_acquire);
}

/* A managed allocation (zeroed for calloc), or NULL when the runtime cannot (the caller falls back). */
static void *managed(size_t n, size_t align, uintptr_t ra, int zero)
{
	void *p;

	if (tlrt_in_rt || !atomic_load_explicit(&ov_loaded, memory_order_relaxed))
		return NULL;
	tlrt_in_rt = 1;
	p = zero ? tlrt_alloc_zeroed(n, ra) : tlrt_alloc(n, align, ra);
	tlrt_in_rt = 0;
	if (!p && tlrt_state() == TLRT_PASSIVE)
		atomic_store_explicit(&ov_threshold, SIZE_MAX, memory_order_relaxed);
	return p;
}

/* Out of line: free's fast path then needs no stack frame. */
static __attribute__((noinline)) void managed_free(void *p)
{
	int was = tlrt_in_rt;

	tlrt_in_rt = 1;
	tlrt_free(p);
	tlrt_in_rt = was;
}

/* Everything but a small request once started: kept out of line so the fast path needs no stack frame. */
static __attribute__((noinline)) void *malloc_slow(size_t n, uintptr_t ra)
{
	void *p;

	if (unlikely(!ready()))
		return resolving_with_next() ? next.malloc(n) : boot_alloc(n, 16);
	if (n >= threshold() && (p = managed(n, 0, ra, 0)))
		return p;
	return next.malloc(n);
}

static inline void *do_malloc(size_t n, uintptr_t ra)
{
	if (likely(n < threshold()))
		return next.malloc(n);
	return malloc_slow(n, ra);
}

/*
 * A small request: a compare and a tail jump, nothing counted. The return
 * address is taken on the slow branch only (as an argument of do_malloc
 * it was loaded on entry).
 */
TL_EXPORT void *malloc(size_t n)
{
	if (likely(n < threshold()))
		return next.malloc(n);
	return malloc_slow(n, RETADDR);
}

/*
 * No check that the next allocator is resolved: until it is, next.free is
 * free_first, which resolves it; while blocks of the bootstrap buffer may
 * be out, free_unless_boot. Loaded relaxed: the pointer is all that is
 * read (the function it names was loaded before dlsym found it), and a
 * relaxed load is a memory operand of the jump.
 */
TL_EXPORT void free(void *p)
{
	if (unlikely(tlrt_managed(p))) {
		managed_free(p);
		return;
	}
	__atomic_load_n(&next.free, __ATOMIC_RELAXED)(p);	/* NULL too: the next allocator ignores it */
}

/* An overflowing size: out of line, so the callers need no stack frame for errno. */
static __attribute__((noinline, cold)) void *enomem(void)
{
	errno = ENOMEM;
	return NULL;
}

/* As malloc_slow: out of line, so calloc's small path needs no stack frame. */
static __attribute__((noinline)) void *calloc_slow(size_t n, size_t m, size_t total, uintptr_t ra)
{
	void *p;

	if (unlikely(!ready()))
		return resolving_with_next() ? next.calloc(n, m) : boot_alloc(total, 16);
	if (total >= threshold() && (p = managed(total, 0, ra, 1)))
		return p;
	return next.calloc(n, m);
}

TL_EXPORT void *calloc(size_t n, size_t m)
{
	size_t total;

	if (__builtin_mul_overflow(n, m, &total))
		return enomem();
	if (likely(total < threshold()))
		return next.calloc(n, m);
	return calloc_slow(n, m, total, RETADDR);
}

static size_t usable(void *p)
{
	if (is_boot(p))
		return boot_size(p);
	if (tlrt_managed(p))
		return tlrt_usable_size(p);
	return next.malloc_usable_size ? next.malloc_usable_size(p) : 0;
}

/* Moves p's data to a new block of n bytes (from q_alloc) and frees p. */
static void *move_to(void *p, void *q, size_t n)
{
	size_t old = usable(p);

	memcpy(q, p, old < n ? old : n);
	if (tlrt_managed(p))
		managed_free(p);
	else if (!is_boot(p))
		next.free(p);
	return q;
}

static void *do_realloc(void *p, size_t n, uintptr_t ra)
{
	void *q;

	if (!p)
		return do_malloc(n, ra);
	if (unlikely(!ready()) || is_boot(p)) {
		if (!is_boot(p) && resolving_with_next())
			return next.realloc(p, n);
		if (!(q = do_malloc(n, ra)))
			return NULL;
		memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
		return q;
	}
	if (tlrt_managed(p)) {
		if (n == 0) {	/* glibc: frees, returns NULL */
			managed_free(p);
			return NULL;
		}
		tlrt_count_realloc();
		if (n >= threshold() && (q = tlrt_resize(p, n)))
			return q;
		q = n >= threshold() ? managed(n, 0, ra, 0) : NULL;
		if (!q && !(q = next.malloc(n)))
			return NULL;	/* errno is ENOMEM; p is untouched */
		return move_to(p, q, n);
	}
	if (n < threshold() || tlrt_in_rt)
		return next.realloc(p, n);
	/* small to large: into managed memory, keeping the data */
	if (!(q = managed(n, 0, ra, 0)))
		return next.realloc(p, n);
	return move_to(p, q, n);
}

TL_EXPORT void *realloc(void *p, size_t n)
{
	return do_realloc(p, n, RETADDR);
}

TL_EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
	size_t total;

	if (__builtin_mul_overflow(n, m, &total))
		return enomem();
	return do_realloc(p, total, RETADDR);
}

static int good_alignment(size_t a)
{
	return a && !(a & (a - 1));
}

TL_EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return boot_alloc(n, align);
	if (n < threshold() || !good_alignment(align))
		return next.memalign(align, n);
	if ((p = managed(n, align, RETADDR, 0)))
		return p;
	return next.memalign(align, n);
}

TL_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (unlikely(!ready())) {
		if (!(p = boot_alloc(n, align)))
			return ENOMEM;
		*out = p;
		return 0;
	}
	if (n < threshold() || !good_alignment(align) || align % sizeof(void *))
		return next.posix_memalign(out, align, n);
	if (!(p = managed(n, align, RETADDR, 0)))
		return next.posix_memalign(out, align, n);
	*out = p;
	return 0;
}

TL_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return boot_alloc(n, align);
	if (n < threshold() || !good_alignment(align))
		return next.aligned_alloc(align, n);
	if ((p = managed(n, align, RETADDR, 0)))
		return p;
	return next.aligned_alloc(align, n);
}

TL_EXPORT void *valloc(size_t n)
{
	void *p;

	if (unlikely(!ready()))
		return boot_alloc(n, 4096);
	if (n < threshold())
		return next.valloc(n);
	if ((p = managed(n, 0, RETADDR, 0)))	/* regions start on 2 MiB */
		return p;
	return next.valloc(n);
}

TL_EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), rounded;
	void *p;

	if (unlikely(!ready()))
		return boot_alloc(n, page);
	if (__builtin_add_overflow(n, page - 1, &rounded))
		return next.pvalloc(n);		/* glibc says ENOMEM */
	rounded = rounded / page * page;
	if (rounded < threshold())
		return next.pvalloc(n);
	if ((p = managed(rounded, 0, RETADDR, 0)))
		return p;
	return next.pvalloc(n);
}

TL_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (unlikely(!ready()) && !is_boot(p))
		return 0;
	return usable(p);
}

/*
 * C++'s operators. The next ones are resolved with the rest, and again at
 * first use when the program had none then (a C program that dlopens a C++
 * library later): cxx_mode says how a small request is served.
 */
enum cxx_op {
	NW, NA, NW_NT, NA_NT, NW_AL, NA_AL, NW_AL_NT, NA_AL_NT,
	DL, DA, DL_SZ, DA_SZ, DL_NT, DA_NT, DL_AL, DA_AL, DL_SZ_AL, DA_SZ_AL, DL_AL_NT, DA_AL_NT, CXX__N
};
static const char *const cxx_name[CXX__N] = {
	"_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
	"_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
	"_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
	"_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
	"_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
	"_ZdlPvSt11align_val_tRKSt9nothrow_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t",
};
static void *cxx_next[CXX__N];
/*
 * CXX_UNSET: not resolved yet; CXX_MALLOC: the next operator new is not
 * the next malloc's library's (libstdc++'s, which calls malloc and free),
 * so small requests go to malloc and free directly; CXX_NEXT: the next
 * allocator has its own operators (jemalloc, mimalloc), called as they are.
 */
enum { CXX_UNSET, CXX_MALLOC, CXX_NEXT };
static int cxx_mode;

typedef void *(*new_fn)(size_t);
typedef void *(*new_nt_fn)(size_t, const void *);
typedef void *(*new_al_fn)(size_t, size_t);
typedef void *(*new_al_nt_fn)(size_t, size_t, const void *);
typedef void (*del_fn)(void *);
typedef void (*del_x_fn)(void *, size_t);
typedef void (*del_nt_fn)(void *, const void *);
typedef void (*del_sz_al_fn)(void *, size_t, size_t);
typedef void (*del_al_nt_fn)(void *, size_t, const void *);

static const void *object_of(void *f)
{
	Dl_info info;

	return f && dladdr(f, &info) ? info.dli_fbase : NULL;
}

/* Resolves the operators; the mode last, released. Called with the malloc API resolved. */
static __attribute__((noinline)) int cxx_resolve(void)
{
	int mode;

	/*
	 * operator new first: without it no C++ runtime is loaded yet, and the
	 * others are not looked up (each failed lookup leaves a message in
	 * dlerror's buffer, at start-up in the bootstrap buffer, never freed)
	 */
	if (!__atomic_load_n(&cxx_next[NW], __ATOMIC_RELAXED))
		__atomic_store_n(&cxx_next[NW], sym(cxx_name[NW]), __ATOMIC_RELAXED);
	if (!__atomic_load_n(&cxx_next[NW], __ATOMIC_RELAXED))
		return CXX_UNSET;
	for (int i = 0; i < CXX__N; i++)
		if (!__atomic_load_n(&cxx_next[i], __ATOMIC_RELAXED))
			__atomic_store_n(&cxx_next[i], sym(cxx_name[i]), __ATOMIC_RELAXED);
	mode = object_of(__atomic_load_n(&cxx_next[NW], __ATOMIC_RELAXED)) == object_of((void *)next.malloc) ? CXX_NEXT : CXX_MALLOC;
	__atomic_store_n(&cxx_mode, mode, __ATOMIC_RELEASE);
	return mode;
}

static inline int cxx(void)
{
	int mode = __atomic_load_n(&cxx_mode, __ATOMIC_ACQUIRE);

	return likely(mode != CXX_UNSET) ? mode : cxx_resolve();
}

/* The next operator `op`: never NULL once cxx() said CXX_NEXT or CXX_MALLOC, but for the rarer forms. */
static void *cxx_fn(enum cxx_op op)
{
	void *f = __atomic_load_n(&cxx_next[op], __ATOMIC_RELAXED);

	if (unlikely(!f)) {
		cxx_resolve();
		f = __atomic_load_n(&cxx_next[op], __ATOMIC_RELAXED);
	}
	return f;
}

static __attribute__((noreturn, noinline)) void cxx_missing(enum cxx_op op)
{
	static const char msg[] = "tiermem: no C++ runtime defines the operator called: ";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0 || write(STDERR_FILENO, cxx_name[op], strlen(cxx_name[op])) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0) {
		/* nowhere to say it */
	}
	abort();
}

/*
 * The next operator new of kind op, for n bytes at align (0: the default),
 * with the nothrow tag nt when op takes one: it throws, calls the
 * new-handler or returns NULL as it does without the runtime.
 */
static __attribute__((noinline)) void *cxx_new_next(enum cxx_op op, size_t n, size_t align, const void *nt)
{
	void *f = cxx_fn(op);

	if (!f)
		cxx_missing(op);
	switch (op) {
	case NW: case NA: return ((new_fn)f)(n);
	case NW_NT: case NA_NT: return ((new_nt_fn)f)(n, nt);
	case NW_AL: case NA_AL: return ((new_al_fn)f)(n, align);
	default: return ((new_al_nt_fn)f)(n, align, nt);
	}
}

/* Everything but a small request once resolved: out of line. */
static __attribute__((noinline)) void *cxx_new_slow(enum cxx_op op, size_t n, size_t align, const void *nt, uintptr_t ra)
{
	void *p;

	if (unlikely(!ready())) {
		if (!(p = boot_alloc(n, align ? align : 16)) && op != NW_NT && op != NA_NT && op != NW_AL_NT && op != NA_AL_NT)
			abort();	/* dlsym itself calling operator new, and out of room: nothing to throw with */
		return p;
	}
	if (n >= threshold() && (!align || good_alignment(align)) && (p = managed(n, align, ra, 0)))
		return p;
	if (n < threshold() && !align && cxx() == CXX_MALLOC && (p = next.malloc(n)))
		return p;
	return cxx_new_next(op, n, align, nt);
}

/* A small request: the next malloc when that is how it is served, else the next operator. */
static __attribute__((noinline)) void *cxx_new_small(enum cxx_op op, size_t n, const void *nt, int mode)
{
	void *p;

	if (mode == CXX_MALLOC && (p = next.malloc(n)))
		return p;
	return cxx_new_next(op, n, 0, nt);	/* the new-handler, bad_alloc, or the nothrow NULL */
}

/*
 * operator new without alignment. The small path inline and without a
 * stack frame when the next allocator has its own operator (a tail call).
 * Always inlined: its return address is then the operator's caller's (GCC
 * and clang document it so), taken on the slow branch only.
 */
static inline __attribute__((always_inline)) void *cxx_new(enum cxx_op op, size_t n, const void *nt)
{
	int mode = __atomic_load_n(&cxx_mode, __ATOMIC_ACQUIRE);

	if (likely(n < threshold()) && likely(mode != CXX_UNSET)) {
		if (likely(mode == CXX_NEXT) && (op == NW || op == NA))
			return ((new_fn)__atomic_load_n(&cxx_next[op], __ATOMIC_RELAXED))(n);
		return cxx_new_small(op, n, nt, mode);
	}
	return cxx_new_slow(op, n, 0, nt, RETADDR);
}

TL_EXPORT void *_Znwm(size_t n) { return cxx_new(NW, n, NULL); }
TL_EXPORT void *_Znam(size_t n) { return cxx_new(NA, n, NULL); }
TL_EXPORT void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(NW_NT, n, nt); }
TL_EXPORT void *_ZnamRKSt9nothrow_t(size_t n, const void *nt) { return cxx_new(NA_NT, n, nt); }
TL_EXPORT void *_ZnwmSt11align_val_t(size_t n, size_t al) { return cxx_new_slow(NW_AL, n, al, NULL, RETADDR); }
TL_EXPORT void *_ZnamSt11align_val_t(size_t n, size_t al) { return cxx_new_slow(NA_AL, n, al, NULL, RETADDR); }
TL_EXPORT void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new_slow(NW_AL_NT, n, al, nt, RETADDR);
}
TL_EXPORT void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t al, const void *nt)
{
	return cxx_new_slow(NA_AL_NT, n, al, nt, RETADDR);
}

/*
 * The next operator delete of kind op (a size or an alignment in x, both
 * for the sized aligned forms, the nothrow tag in nt); free when the C++
 * runtime's delete is libstdc++'s (it frees) or none is loaded.
 */
static __attribute__((noinline)) void cxx_delete_next(enum cxx_op op, void *p, size_t x, size_t al, const void *nt)
{
	void *f = cxx() == CXX_NEXT ? cxx_fn(op) : NULL;

	if (!f) {
		__atomic_load_n(&next.free, __ATOMIC_ACQUIRE)(p);
		return;
	}
	switch (op) {
	case DL: case DA: ((del_fn)f)(p); return;
	case DL_SZ: case DA_SZ: case DL_AL: case DA_AL: ((del_x_fn)f)(p, x); return;
	case DL_NT: case DA_NT: ((del_nt_fn)f)(p, nt); return;
	case DL_SZ_AL: case DA_SZ_AL: ((del_sz_al_fn)f)(p, x, al); return;
	default: ((del_al_nt_fn)f)(p, x, nt); return;
	}
}

/* As free: managed and bootstrap pointers first, then the next allocator. */
static inline void cxx_delete(enum cxx_op op, void *p, size_t x, size_t al, const void *nt)
{
	int mode;

	if (unlikely(tlrt_managed(p))) {
		managed_free(p);
		return;
	}
	if (unlikely(is_boot(p)))
		return;
	mode = __atomic_load_n(&cxx_mode, __ATOMIC_ACQUIRE);
	if (likely(mode == CXX_MALLOC)) {
		next.free(p);
		return;
	}
	if (likely(mode == CXX_NEXT) && (op == DL || op == DA)) {
		((del_fn)__atomic_load_n(&cxx_next[op], __ATOMIC_RELAXED))(p);
		return;
	}
	if (likely(mode == CXX_NEXT) && (op == DL_SZ || op == DA_SZ)) {
		((del_x_fn)__atomic_load_n(&cxx_next[op], __ATOMIC_RELAXED))(p, x);
		return;
	}
	cxx_delete_next(op, p, x, al, nt);
}

TL_EXPORT void _ZdlPv(void *p) { cxx_delete(DL, p, 0, 0, NULL); }
TL_EXPORT void _ZdaPv(void *p) { cxx_delete(DA, p, 0, 0, NULL); }
TL_EXPORT void _ZdlPvm(void *p, size_t n) { cxx_delete(DL_SZ, p, n, 0, NULL); }
TL_EXPORT void _ZdaPvm(void *p, size_t n) { cxx_delete(DA_SZ, p, n, 0, NULL); }
TL_EXPORT void _ZdlPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(DL_NT, p, 0, 0, nt); }
TL_EXPORT void _ZdaPvRKSt9nothrow_t(void *p, const void *nt) { cxx_delete(DA_NT, p, 0, 0, nt); }
TL_EXPORT void _ZdlPvSt11align_val_t(void *p, size_t al) { cxx_delete(DL_AL, p, al, 0, NULL); }
TL_EXPORT void _ZdaPvSt11align_val_t(void *p, size_t al) { cxx_delete(DA_AL, p, al, 0, NULL); }
TL_EXPORT void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(DL_SZ_AL, p, n, al, NULL); }
TL_EXPORT void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t al) { cxx_delete(DA_SZ_AL, p, n, al, NULL); }
TL_EXPORT void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt) { cxx_delete(DL_AL_NT, p, al, 0, nt); }
TL_EXPORT void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t al, const void *nt) { cxx_delete(DA_AL_NT, p, al, 0, nt); }

/*
 * At load: read the variables before the program's code runs, create the
 * counters file. The heavy start (reservation, policy, thread) waits for
 * the first managed allocation.
 */
__attribute__((constructor)) static void tiermem_load(void)
{
	atomic_store(&ov_loaded, 1);
	if (!ready())
		return;
	tlrt_in_rt = 1;
	if (tlrt_open_files())
		atomic_store_explicit(&ov_threshold, SIZE_MAX, memory_order_relaxed);
	tlrt_in_rt = 0;
}

__attribute__((destructor)) static void tiermem_unload(void)
{
	int was = tlrt_in_rt;

	tlrt_in_rt = 1;
	tlrt_finish();
	tlrt_in_rt = was;
}
