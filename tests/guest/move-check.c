/*
 * Guest check for the harness (run-in-guest.sh): prints the node count
 * libnuma sees and moves one page from node 0 to the last node and back
 * with move_pages, printing where the kernel says it is after each step.
 * Exit 0 when every move landed. Statically linked: the guest has no
 * libraries.
 */
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int where(void *page)
{
	int status = -1;

	if (move_pages(0, 1, &page, NULL, &status, 0))
		return -1;
	return status;
}

static int move_to(void *page, int node)
{
	int status = -1;

	if (move_pages(0, 1, &page, &node, &status, MPOL_MF_MOVE))
		perror("move_pages");
	/* Under THP a move can report -EBUSY although the page moved: ask again. */
	return where(page);
}

int main(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	int nodes, last, at;
	char *page;

	if (numa_available() < 0) {
		printf("numa: unavailable\n");
		return 1;
	}
	nodes = numa_num_configured_nodes();
	last = numa_max_node();
	printf("numa_num_configured_nodes: %d\n", nodes);
	page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 1;
	memset(page, 7, (size_t)psz);
	printf("page on node %d\n", where(page));
	at = move_to(page, last);
	printf("moved to node %d: now on node %d\n", last, at);
	if (at != last)
		return 1;
	at = move_to(page, 0);
	printf("moved to node 0: now on node %d\n", at);
	if (at != 0 || page[psz - 1] != 7)
		return 1;
	printf("move-check: ok\n");
	return 0;
}
