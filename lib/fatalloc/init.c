/*
 * Process-wide set-up: the locks, the options, fork safety and the key
 * whose destructor hands a dying thread's cached blocks back.
 *
 * All of it happens lazily, at the first pool reservation, under the pool
 * lock: nothing runs in a constructor, so a program that never allocates
 * pays nothing and nothing depends on constructor order.
 *
 * Fork: the prepare handler takes every allocator lock in the one order
 * the code nests them (large, then pool, then the central lists), so the
 * child never inherits a lock held by a thread that does not exist there;
 * the parent releases them, the child re-creates them. Thread caches of
 * other threads are simply lost in the child (their blocks stay allocated),
 * as they are in every allocator with thread caches.
 */
#include "fatalloc/fatalloc.h"

#include <string.h>

extern char **environ;

pthread_mutex_t fat_pool_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t fat_large_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_key_t fat_thread_key;
static bool inited;

void fat_fork_prepare(void)
{
	pthread_mutex_lock(&fat_large_lock);
	pthread_mutex_lock(&fat_pool_lock);
	fat_central_lock_all();
}

void fat_fork_parent(void)
{
	fat_central_unlock_all();
	pthread_mutex_unlock(&fat_pool_lock);
	pthread_mutex_unlock(&fat_large_lock);
}

void fat_fork_child(void)
{
	/* the child has one thread: fresh locks are the released ones */
	pthread_mutex_init(&fat_pool_lock, NULL);
	pthread_mutex_init(&fat_large_lock, NULL);
	fat_central_reinit_all();
}

static void thread_exit(void *arg)
{
	struct fat_tcache *tc = arg;

	fat_tcache_flush(tc);
	tc->state = FAT_TC_DEAD;
}

void fat_init_locked(void)
{
	if (inited)
		return;
	inited = true;
	fat_options_load(environ, &fat_opt);
	fat_classes_init();
	pthread_atfork(fat_fork_prepare, fat_fork_parent, fat_fork_child);
	pthread_key_create(&fat_thread_key, thread_exit);
}

void fat_test_reset(void)
{
	struct fat_tcache *tc = &fat_tc;

	pthread_mutex_lock(&fat_pool_lock);
	fat_pool_reset();
	fat_large_reset();
	fat_central_reset();
	memset(tc->bins, 0, sizeof(tc->bins));
	tc->seg_cur = tc->seg_end = NULL;
	tc->seg_next = 0;
	tc->live_delta = 0;
	tc->mallocs = tc->frees = tc->ops = 0;
	for (int s = 0; s < FAT_STAT__COUNT; s++)
		atomic_store(&fat_stats[s], 0);
	/* options are read again: a test changes the environment between resets */
	if (inited)
		fat_options_load(environ, &fat_opt);
	pthread_mutex_unlock(&fat_pool_lock);
}
