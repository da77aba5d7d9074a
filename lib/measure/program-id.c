/*
 * What a run's program was (environment.h, tl_env_put_program): its
 * GNU build id, the ELF note a linker writes to name one build, or where
 * it has none the SHA-256 of the file; and how it was compiled, from the
 * sections compilers leave: .comment (GCC and clang write their version
 * there) and .GCC.command.line (the options of each compilation,
 * -frecord-gcc-switches, which the built-in workloads are compiled with:
 * -march=native there is what it meant on the machine that built it).
 * The file is mapped read-only and every offset checked against its size:
 * a workload may be any file.
 */
#include "measure/environment.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/sha256.h"

/* A mapped file and the ELF section headers in it (shdr NULL when it is not a 64-bit ELF file). */
struct elf {
	const unsigned char *p;
	size_t size;
	const Elf64_Shdr *shdr;
	size_t nsh;
	const char *names;	/* the section name table */
	size_t names_size;
};

static bool in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static void elf_open(struct elf *e)
{
	const Elf64_Ehdr *h = (const void *)e->p;
	const Elf64_Shdr *strtab;

	e->shdr = NULL;
	if (e->size < sizeof(*h) || memcmp(h->e_ident, ELFMAG, SELFMAG) || h->e_ident[EI_CLASS] != ELFCLASS64 ||
	    h->e_shentsize != sizeof(Elf64_Shdr) || !in_file(e, h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr)) ||
	    h->e_shoff % 8 || h->e_shstrndx >= h->e_shnum)
		return;
	e->shdr = (const void *)(e->p + h->e_shoff);
	e->nsh = h->e_shnum;
	strtab = &e->shdr[h->e_shstrndx];
	if (!in_file(e, strtab->sh_offset, strtab->sh_size)) {
		e->shdr = NULL;
		return;
	}
	e->names = (const char *)e->p + strtab->sh_offset;
	e->names_size = strtab->sh_size;
}

/* The section called name, or NULL (also when its contents lie outside the file). */
static const Elf64_Shdr *section(const struct elf *e, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; e->shdr && i < e->nsh; i++) {
		const Elf64_Shdr *s = &e->shdr[i];

		if (s->sh_name < e->names_size && e->names_size - s->sh_name > len &&
		    !memcmp(e->names + s->sh_name, name, len + 1) && s->sh_type != SHT_NOBITS &&
		    in_file(e, s->sh_offset, s->sh_size))
			return s;
	}
	return NULL;
}

/* The NT_GNU_BUILD_ID note of any note section, as hex into hex (2 * 64 + 1); false when none. */
static bool build_id(const struct elf *e, char *hex, size_t len)
{
	for (size_t i = 0; e->shdr && i < e->nsh; i++) {
		const Elf64_Shdr *s = &e->shdr[i];
		uint64_t off = 0;

		if (s->sh_type != SHT_NOTE || !in_file(e, s->sh_offset, s->sh_size))
			continue;
		while (off + sizeof(Elf64_Nhdr) <= s->sh_size) {
			const Elf64_Nhdr *n = (const void *)(e->p + s->sh_offset + off);
			uint64_t name_at = off + sizeof(*n), desc_at = name_at + ((n->n_namesz + 3ull) & ~3ull);
			uint64_t next = desc_at + ((n->n_descsz + 3ull) & ~3ull);

			if (next > s->sh_size)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(e->p + s->sh_offset + name_at, "GNU", 4) && n->n_descsz && 2 * n->n_descsz < len) {
				for (uint32_t b = 0; b < n->n_descsz; b++)
					snprintf(hex + 2 * b, 3, "%02x", e->p[s->sh_offset + desc_at + b]);
				return true;
			}
			off = next;
		}
	}
	return false;
}

/*
 * A section of NUL-separated strings as one line: each distinct string
 * once, in order, joined by sep (one compilation unit's options are one
 * string, and every unit of a program repeats them).
 */
static char *strings_of(const struct elf *e, const char *name, const char *sep)
{
	const Elf64_Shdr *s = section(e, name);
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!s || !(f = open_memstream(&out, &len)))
		return NULL;
	for (uint64_t at = 0; at < s->sh_size;) {
		const char *str = (const char *)e->p + s->sh_offset + at;
		size_t n = strnlen(str, s->sh_size - at);
		bool seen = false;

		/* a string at most once: look for it earlier in the section */
		for (uint64_t b = 0; b < at && n && !seen;) {
			const char *prev = (const char *)e->p + s->sh_offset + b;
			size_t m = strnlen(prev, s->sh_size - b);

			seen = m == n && !memcmp(prev, str, n);
			b += m + 1;
		}
		if (n && !seen)
			fprintf(f, "%s%.*s", ftell(f) ? sep : "", (int)n, str);
		at += n + 1;
	}
	if (fclose(f) || !len) {
		free(out);
		return NULL;
	}
	return out;
}

/* A bare name as execvp finds it: the first executable of that name along PATH, into buf; else the name. */
static const char *along_path(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (!name || strchr(name, '/') || !path)
		return name;
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, len, "%.*s/%s", (int)n, n ? p : ".", name);
		if (!access(buf, X_OK))
			return buf;
		p += n + (p[n] == ':');
	}
	return name;
}

static int unreadable(struct tl_env *env)
{
	return tl_env_set(env, "workload.build_id", "unreadable") ?:
	       tl_env_set(env, "workload.compiler", "unknown (the program is unreadable)") ?:
	       tl_env_set(env, "workload.cflags", "not recorded (the program is unreadable)");
}

int tl_env_put_program(struct tl_env *env, const char *name)
{
	struct elf e = { 0 };
	char id[160], hash[65], found[4096];
	char *compiler = NULL, *flags = NULL;
	const char *path = along_path(name, found, sizeof(found));
	struct stat sb;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1, rc;

	rc = tl_env_set(env, "workload.program", path);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		if (fd >= 0)
			close(fd);
		return rc ?: unreadable(env);
	}
	e.size = (size_t)sb.st_size;
	e.p = e.size ? mmap(NULL, e.size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (e.p == MAP_FAILED)
		return rc ?: unreadable(env);
	elf_open(&e);
	if (build_id(&e, id, sizeof(id))) {
		rc = rc ?: tl_env_set(env, "workload.build_id", id);
	} else {
		struct tl_sha256 s;

		/* no build id (not ELF, or linked without one): the content names it */
		tl_sha256_init(&s);
		tl_sha256_update(&s, e.p, e.size);
		tl_sha256_hex(&s, hash);
		rc = rc ?: tl_env_set(env, "workload.sha256", hash);
	}
	if (e.shdr) {
		compiler = strings_of(&e, ".comment", "; ");
		flags = strings_of(&e, ".GCC.command.line", "; ");
	}
	rc = rc ?: tl_env_set(env, "workload.compiler", compiler ? compiler : e.shdr ? "unknown (no .comment section)"
							       : "unknown (not an ELF program)");
	rc = rc ?: tl_env_set(env, "workload.cflags", flags ? flags : "not recorded (built without "
				"-frecord-gcc-switches)");
	free(compiler);
	free(flags);
	munmap((void *)e.p, e.size);
	return rc;
}
