/*
 * Reading YAML: a file whole, then libyaml's document tree (which keeps
 * the line and column of every node), with what libyaml's loader leaves
 * undone: aliases placed where they are written, their expansion bounded,
 * merge keys (`<<`) applied, a second document refused.
 */
#include "spec/yaml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/array.h"

/* Where a reader error (bad UTF-8, a NUL) sits, from its byte offset. */
static void offset_to_mark(const char *text, size_t offset, size_t *line, size_t *col)
{
	*line = 0;
	*col = 0;
	for (size_t i = 0; i < offset && text[i]; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 0;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80) {
			(*col)++;	/* characters, as libyaml's marks count them, not bytes */
		}
	}
}

static int parser_error(struct tl_yaml *y, const yaml_parser_t *p, const char *text)
{
	size_t line = p->problem_mark.line, col = p->problem_mark.column;
	const char *problem = p->problem ? p->problem : "cannot parse";

	if (p->error == YAML_MEMORY_ERROR)
		return tl_error_set(y->err, "%s: out of memory", y->path);
	if (p->error == YAML_READER_ERROR)
		offset_to_mark(text, p->problem_offset, &line, &col);
	if (p->context)
		return tl_error_set(y->err, "%s:%zu:%zu: invalid YAML: %s (%s at line %zu)", y->path, line + 1,
				    col + 1, problem, p->context, p->context_mark.line + 1);
	return tl_error_set(y->err, "%s:%zu:%zu: invalid YAML: %s", y->path, line + 1, col + 1, problem);
}

/* Where an alias was written: the slot of a list or map that refers to its anchor's node. */
struct alias_use {
	int container;	/* node index */
	size_t slot;	/* list item, or 2 * pair + (0 key, 1 value) */
	yaml_mark_t mark;
};

static int *slot_of(struct tl_yaml *y, int container, size_t slot)
{
	yaml_node_t *c = tl_yaml_node(y, container);
	yaml_node_pair_t *pair;

	if (c->type == YAML_SEQUENCE_NODE)
		return &c->data.sequence.items.start[slot];
	pair = &c->data.mapping.pairs.start[slot / 2];
	return slot % 2 ? &pair->value : &pair->key;
}

/* A copy of node `index` that sits at `mark`; shares the children of a list or map. */
static int copy_at(struct tl_yaml *y, int index, yaml_mark_t mark)
{
	yaml_node_t *n = tl_yaml_node(y, index);
	yaml_document_t *d = &y->doc;
	int copy = 0;

	switch (n->type) {
	case YAML_SCALAR_NODE:
		copy = yaml_document_add_scalar(d, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
						n->data.scalar.style);
		break;
	case YAML_SEQUENCE_NODE:
		copy = yaml_document_add_sequence(d, n->tag, n->data.sequence.style);
		/* adding nodes moves them: look the original up by index each time */
		for (size_t i = 0; copy && i < tl_yaml_count(tl_yaml_node(y, index)); i++)
			if (!yaml_document_append_sequence_item(d, copy,
							       tl_yaml_node(y, index)->data.sequence.items.start[i]))
				copy = 0;
		break;
	case YAML_MAPPING_NODE:
		copy = yaml_document_add_mapping(d, n->tag, n->data.mapping.style);
		for (size_t i = 0; copy && i < tl_yaml_count(tl_yaml_node(y, index)); i++) {
			yaml_node_pair_t p = tl_yaml_node(y, index)->data.mapping.pairs.start[i];

			if (!yaml_document_append_mapping_pair(d, copy, p.key, p.value))
				copy = 0;
		}
		break;
	default:
		break;
	}
	if (copy) {
		tl_yaml_node(y, copy)->start_mark = mark;
		tl_yaml_node(y, copy)->end_mark = mark;
	}
	return copy;
}

/*
 * One pass over libyaml's events before anything is built. libyaml's
 * scanner does work in proportion to the nesting depth for every token,
 * so a deeply nested file ("[[[[...") takes quadratic time: the pass stops
 * at the depth limit, at the place it was passed. It also finds where each
 * alias is written (libyaml's tree makes an alias the very node of its
 * anchor, line and all, so a value wrong where it is used would be
 * reported where it was defined; place_aliases() fixes that) and refuses
 * a second document, which the loader would silently ignore.
 */
static int scan_events(struct tl_yaml *y, const char *text, struct alias_use **uses, size_t *nuses)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct { int node; size_t slot; } stack[TL_YAML_MAX_DEPTH];
	size_t depth = 0;
	int next = 1, docs = 0, rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return tl_error_set(y->err, "%s: out of memory", y->path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	while (!rc && !done) {
		bool node_ev, start_ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(y, &parser, text);
			break;
		}
		node_ev = ev.type == YAML_SCALAR_EVENT || ev.type == YAML_SEQUENCE_START_EVENT ||
			  ev.type == YAML_MAPPING_START_EVENT;
		start_ev = ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT;
		if (ev.type == YAML_DOCUMENT_START_EVENT)
			docs++;
		if (docs > 1 && (node_ev || ev.type == YAML_ALIAS_EVENT))
			rc = tl_error_set(y->err, "%s:%zu:%zu: a file holds one YAML document; this is a second one (after ---)",
					  y->path, ev.start_mark.line + 1, ev.start_mark.column + 1);
		else if (start_ev && depth == ARRAY_SIZE(stack))
			rc = tl_error_set(y->err, "%s:%zu:%zu: lists and maps nested more than %d deep; a spec needs a few levels",
					  y->path, ev.start_mark.line + 1, ev.start_mark.column + 1, TL_YAML_MAX_DEPTH);
		/* nodes are numbered in event order: a node event takes the next index */
		if (!rc && (node_ev || ev.type == YAML_ALIAS_EVENT) && depth) {
			if (ev.type == YAML_ALIAS_EVENT) {
				struct alias_use *grown = realloc(*uses, sizeof(**uses) * (*nuses + 1));

				if (!grown)
					rc = tl_error_set(y->err, "out of memory");
				else
					(*uses = grown)[(*nuses)++] = (struct alias_use){
						stack[depth - 1].node, stack[depth - 1].slot, ev.start_mark };
			}
			stack[depth - 1].slot++;
		}
		if (!rc && start_ev) {
			stack[depth].node = next;
			stack[depth++].slot = 0;
		}
		if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		if (node_ev)
			next++;
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* The children of a list or map: item or key and value indices. */
static size_t children(struct tl_yaml *y, int index, size_t i, int *child)
{
	yaml_node_t *n = tl_yaml_node(y, index);

	if (n->type == YAML_SEQUENCE_NODE) {
		*child = i < tl_yaml_count(n) ? n->data.sequence.items.start[i] : 0;
		return tl_yaml_count(n);
	}
	if (n->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p = &n->data.mapping.pairs.start[i / 2];

		*child = i < 2 * tl_yaml_count(n) ? (i % 2 ? p->value : p->key) : 0;
		return 2 * tl_yaml_count(n);
	}
	*child = 0;
	return 0;
}

static bool is_merge_key(const yaml_node_t *k)
{
	return k && k->type == YAML_SCALAR_NODE && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !strcmp((const char *)k->data.scalar.value, "<<");
}

struct frame {
	int node;
	size_t next;	/* the child to visit next */
};

/* Is the last step of the walk a merge key's value (or a map of the list that is one)? */
static bool merge_edge(struct tl_yaml *y, const struct frame *stack, size_t depth)
{
	for (size_t d = depth; d-- > 0 && d + 2 >= depth;) {
		yaml_node_t *n = tl_yaml_node(y, stack[d].node);
		size_t i = stack[d].next - 1;

		if (n->type == YAML_MAPPING_NODE)
			return i % 2 && is_merge_key(tl_yaml_node(y, n->data.mapping.pairs.start[i / 2].key));
		if (n->type != YAML_SEQUENCE_NODE)
			return false;
	}
	return false;
}

/*
 * An alias repeats its anchor's whole list or map, so a small file can
 * stand for an enormous tree ("billion laughs"), and an alias inside its
 * own anchor for an endless one. Before anything is copied, the tree as
 * the spec parser would walk it is counted (a depth-first walk with its
 * own stack, sizes remembered per node): aliases may add at most
 * TL_YAML_MAX_REPEATED nodes to the file's own, and no cycle.
 */
static int check_expansion(struct tl_yaml *y)
{
	size_t count = (size_t)(y->doc.nodes.top - y->doc.nodes.start), limit = count + TL_YAML_MAX_REPEATED;
	struct frame *stack = calloc(count + 1, sizeof(*stack));
	size_t *size = calloc(count + 1, sizeof(*size)), depth = 0;
	char *state = calloc(count + 1, 1);	/* 0 unseen, 1 on the stack, 2 counted */
	int rc = 0;

	if (!stack || !size || !state) {
		rc = tl_error_set(y->err, "out of memory");
		goto out;
	}
	if (count) {
		stack[depth++] = (struct frame){ 1, 0 };
		state[1] = 1;
	}
	while (depth && !rc) {
		struct frame *f = &stack[depth - 1];
		int child;

		if (f->next < children(y, f->node, f->next, &child)) {
			f->next++;
			if (state[child] == 1 && merge_edge(y, stack, depth))
				rc = tl_yaml_error(y, tl_yaml_node(y, child), "'<<' (a merge key) makes this map merge itself");
			else if (state[child] == 1)
				rc = tl_yaml_error(y, tl_yaml_node(y, child), "an alias of this list or map is inside it: it would never end");
			else if (!state[child]) {
				state[child] = 1;
				stack[depth++] = (struct frame){ child, 0 };
			}
			continue;
		}
		/* all children counted */
		size[f->node] = 1;
		for (size_t i = 0; i < children(y, f->node, i, &child); i++)
			size[f->node] = size[f->node] + size[child] > limit ? limit + 1 : size[f->node] + size[child];
		state[f->node] = 2;
		/* the smallest list or map that passes the limit: where the repeating is */
		if (size[f->node] > limit)
			rc = tl_yaml_error(y, tl_yaml_node(y, f->node), "with what its aliases repeat, %s holds more than "
					   "%zu values (the file has %zu; aliases may add %d); a spec needs far fewer",
					   tl_yaml_kind(tl_yaml_node(y, f->node)), limit, count, TL_YAML_MAX_REPEATED);
		depth--;
	}
out:
	free(stack);
	free(size);
	free(state);
	return rc;
}

/* Each slot of a list or map where an alias was written gets a copy of its node placed there. */
static int place_aliases(struct tl_yaml *y, const struct alias_use *uses, size_t nuses)
{
	for (size_t i = 0; i < nuses; i++) {
		int *slot = slot_of(y, uses[i].container, uses[i].slot);
		int copy = copy_at(y, *slot, uses[i].mark);

		if (!copy)
			return tl_error_set(y->err, "out of memory");
		*(slot_of(y, uses[i].container, uses[i].slot)) = copy;
	}
	return 0;
}

/* The pairs of the merge sources, in order, that the map does not set and no earlier source gave. */
static int merged_pairs(struct tl_yaml *y, int index, const int *srcs, size_t nsrc, yaml_node_pair_t *out,
			size_t cap, size_t *n)
{
	yaml_node_t *map = tl_yaml_node(y, index);
	struct tl_seen seen;
	bool fresh;
	int rc = 0;

	if (tl_seen_init(&seen, cap))
		return tl_error_set(y->err, "out of memory");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key = tl_yaml_text(tl_yaml_node(y, p->key));

		if (key && !is_merge_key(tl_yaml_node(y, p->key)) && !tl_seen_add(&seen, key, strlen(key), 0, &fresh))
			rc = tl_error_set(y->err, "out of memory");
	}
	*n = 0;
	for (size_t i = 0; !rc && i < nsrc; i++) {
		yaml_node_t *s = tl_yaml_node(y, srcs[i]);

		for (yaml_node_pair_t *p = s->data.mapping.pairs.start; !rc && p < s->data.mapping.pairs.top; p++) {
			const char *key = tl_yaml_text(tl_yaml_node(y, p->key));

			/* the map's own keys win, then earlier merge sources */
			if (key && !tl_seen_add(&seen, key, strlen(key), 0, &fresh))
				rc = tl_error_set(y->err, "out of memory");
			else if (!key || fresh)
				out[(*n)++] = *p;
		}
	}
	tl_seen_release(&seen);
	return rc;
}

/*
 * YAML merge keys: `<<: *anchor` (or a list of anchors) copies the
 * anchor's pairs into the map where the map does not set them itself.
 * state[index]: 0 unseen, 1 being expanded (a map merging itself), 2 done.
 */
static int expand_merge(struct tl_yaml *y, int index, char *state)
{
	yaml_node_t *map = tl_yaml_node(y, index), *mk = NULL, *v = NULL;
	yaml_node_pair_t *out = NULL, *merged = NULL;
	size_t n = 0, nmerged = 0, own, nsrc, cap;
	int *srcs = NULL, value = 0, rc = 0;

	if (state[index] == 2)
		return 0;
	if (state[index] == 1)
		return tl_yaml_error(y, map, "'<<' (a merge key) makes this map merge itself");
	state[index] = 1;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = tl_yaml_node(y, p->key);

		if (!is_merge_key(k))
			continue;
		if (mk) {
			rc = tl_yaml_error(y, k, "'<<' is given twice (first at line %d)", tl_yaml_loc(mk).line);
			goto out;
		}
		mk = k;
		value = p->value;
	}
	if (!mk)
		goto done;
	/* the sources, each expanded first: its own merges are pairs it has */
	v = tl_yaml_node(y, value);
	nsrc = v->type == YAML_SEQUENCE_NODE ? tl_yaml_count(v) : 1;
	if (!(srcs = malloc(sizeof(*srcs) * (nsrc + 1)))) {
		rc = tl_error_set(y->err, "out of memory");
		goto out;
	}
	own = tl_yaml_count(map);
	cap = own;
	for (size_t i = 0; i < nsrc; i++) {
		yaml_node_t *s;

		srcs[i] = v->type == YAML_SEQUENCE_NODE ? v->data.sequence.items.start[i] : value;
		s = tl_yaml_node(y, srcs[i]);
		if (!s || s->type != YAML_MAPPING_NODE) {
			rc = tl_yaml_error(y, s, "'<<' (a merge key) takes a map or a list of maps, got %s",
					   tl_yaml_kind(s));
			goto out;
		}
		if ((rc = expand_merge(y, srcs[i], state)))
			goto out;
		cap += tl_yaml_count(s);
	}
	if (!(merged = malloc(sizeof(*merged) * (cap + 1))) ||
	    (rc = merged_pairs(y, index, srcs, nsrc, merged, cap, &nmerged))) {
		rc = rc ?: tl_error_set(y->err, "out of memory");
		goto out;
	}
	/* the merged pairs take the merge key's place */
	out = malloc(sizeof(*out) * (own + nmerged + 1));
	if (!out) {
		rc = tl_error_set(y->err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < own; i++) {
		yaml_node_pair_t p = map->data.mapping.pairs.start[i];

		if (!is_merge_key(tl_yaml_node(y, p.key))) {
			out[n++] = p;
			continue;
		}
		for (size_t j = 0; j < nmerged; j++)
			out[n++] = merged[j];
	}
	/* libyaml frees the pair stack with free(): swap in the new one */
	free(map->data.mapping.pairs.start);
	map->data.mapping.pairs.start = out;
	map->data.mapping.pairs.top = out + n;
	map->data.mapping.pairs.end = out + own + nmerged + 1;
	out = NULL;
done:
	state[index] = 2;
out:
	free(out);
	free(merged);
	free(srcs);
	return rc;
}

static int expand_merges(struct tl_yaml *y)
{
	size_t count = (size_t)(y->doc.nodes.top - y->doc.nodes.start);
	char *state = calloc(count + 1, 1);
	int rc = 0;

	if (!state)
		return tl_error_set(y->err, "out of memory");
	for (size_t i = 1; !rc && i <= count; i++)
		if (tl_yaml_node(y, (int)i)->type == YAML_MAPPING_NODE)
			rc = expand_merge(y, (int)i, state);
	free(state);
	return rc;
}

int tl_yaml_load(struct tl_yaml *y, const char *path, const char *text, struct tl_error *err)
{
	yaml_parser_t parser;
	struct alias_use *uses = NULL;
	size_t nuses = 0;
	int rc;

	memset(y, 0, sizeof(*y));
	y->path = path;
	y->err = err;
	if ((rc = scan_events(y, text, &uses, &nuses)))
		goto out_uses;
	if (!yaml_parser_initialize(&parser)) {
		rc = tl_error_set(err, "%s: out of memory", path);
		goto out_uses;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&parser, &y->doc)) {
		rc = parser_error(y, &parser, text);
		goto out;
	}
	y->loaded = true;
	if (!(rc = check_expansion(y)) && !(rc = place_aliases(y, uses, nuses)))
		rc = expand_merges(y);
out:
	yaml_parser_delete(&parser);
out_uses:
	free(uses);
	return rc;
}

void tl_yaml_release(struct tl_yaml *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	y->loaded = false;
}

int tl_spec_read_file(const char *path, char **text, struct tl_error *err)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nul;
	size_t len = 0, cap = 0, n;
	int saved;

	if (!f)
		return tl_error_set(err, "%s: cannot read: %s", path, strerror(errno));
	do {
		if (cap - len < 4096) {
			/* room for one byte past the limit, to see that there is one, and the final NUL */
			size_t want = cap ? cap * 2 : 8192;
			char *grown;

			if (want > TL_SPEC_MAX_BYTES + 2)
				want = TL_SPEC_MAX_BYTES + 2;
			if (!(grown = realloc(buf, want))) {
				saved = ENOMEM;
				goto fail;
			}
			buf = grown;
			cap = want;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		/* everything after a NUL would be cut off unseen by the string-based parser */
		if ((nul = memchr(buf + len, '\0', n))) {
			size_t line, col;

			buf[len + n] = '\0';
			offset_to_mark(buf, (size_t)(nul - buf), &line, &col);
			fclose(f);
			free(buf);
			return tl_error_set(err, "%s:%zu:%zu: the file contains a NUL byte; a spec is text", path,
					    line + 1, col + 1);
		}
		len += n;
		if (len > TL_SPEC_MAX_BYTES) {
			fclose(f);
			free(buf);
			return tl_error_set(err, "%s: larger than %s; a spec is a text file of at most %s", path,
					    TL_SPEC_MAX_TEXT, TL_SPEC_MAX_TEXT);
		}
	} while (n);
	if (ferror(f)) {
		saved = errno ? errno : EIO;
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	*text = buf;
	return 0;
fail:
	fclose(f);
	free(buf);
	return tl_error_set(err, "%s: cannot read: %s", path, strerror(saved));
}
