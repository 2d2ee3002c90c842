/* SPDX-License-Identifier: MIT */
#include "names/hwdb.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/readfull.h"

/* The header's fields (little-endian 64-bit words after the 8-byte signature). */
#define HDR_FILE_SIZE 16
#define HDR_NODE_SIZE 32
#define HDR_CHILD_SIZE 40
#define HDR_VALUE_SIZE 48
#define HDR_ROOT 56
#define HDR_LEN 80
/* A node: prefix offset, child count (one byte), value count. */
#define NODE_PREFIX 0
#define NODE_CHILDREN 8
#define NODE_VALUES 16
#define NODE_MIN 24
#define CHILD_OFF 8
#define ENTRY_MIN 16
/* Value entries of format 2 and 3 also say where the line came from. */
#define ENTRY_FILENAME 16
#define ENTRY_LINE 24
#define ENTRY_PRIORITY 28
#define ENTRY2_LEN 32
#define PART_MAX (1u << 20) /* sizes of nodes and entries: anything larger is corrupt */
#define PATTERN_MAX 2048    /* sd-hwdb's line buffer (LINE_MAX) */

const char *const hwdb_default_paths[] = {
	"/etc/systemd/hwdb/hwdb.bin",
	"/etc/udev/hwdb.bin",
	"/usr/lib/systemd/hwdb/hwdb.bin",
	"/lib/systemd/hwdb/hwdb.bin",
	"/usr/lib/udev/hwdb.bin",
	"/lib/udev/hwdb.bin",
	NULL,
};

static uint64_t le64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t le32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint16_t le16_at(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

/* off..off+len lies in the file. */
static bool inside(const struct hwdb *h, uint64_t off, uint64_t len)
{
	return off <= h->size && len <= h->size - off;
}

/* A NUL-terminated string at off, or NULL. */
static const char *string_at(const struct hwdb *h, uint64_t off)
{
	if (off >= h->size || !memchr(h->data + off, '\0', h->size - off))
		return NULL;
	return (const char *)h->data + off;
}

struct node {
	uint64_t off;
	const char *prefix;
	unsigned int children;
	uint64_t values;
	uint64_t children_off, values_off;
};

static bool node_at(const struct hwdb *h, uint64_t off, struct node *n)
{
	uint64_t prefix;

	if (!inside(h, off, h->node_size))
		return false;
	n->off = off;
	prefix = le64_at(h->data + off + NODE_PREFIX);
	/* offset 0 is "no prefix" (systemd-hwdb never writes it otherwise) */
	n->prefix = prefix ? string_at(h, prefix) : "";
	n->children = h->data[off + NODE_CHILDREN];
	n->values = le64_at(h->data + off + NODE_VALUES);
	n->children_off = off + h->node_size;
	if (!n->prefix || !inside(h, n->children_off, (uint64_t)n->children * h->child_size))
		return false;
	n->values_off = n->children_off + (uint64_t)n->children * h->child_size;
	return n->values <= (h->size - n->values_off) / h->value_size;
}

int hwdb_load(struct hwdb *h, const void *data, size_t size, const char **why)
{
	struct node root;
	const char *w = NULL;

	memset(h, 0, sizeof(*h));
	h->data = (unsigned char *)data;
	h->size = size;
	h->borrowed = 1;
	if (size < HDR_LEN || memcmp(data, "KSLPHHRH", 8) != 0)
		w = "no hwdb signature";
	else if (le64_at(h->data + HDR_FILE_SIZE) != size)
		w = "file size differs from the header's";
	if (!w) {
		h->node_size = le64_at(h->data + HDR_NODE_SIZE);
		h->child_size = le64_at(h->data + HDR_CHILD_SIZE);
		h->value_size = le64_at(h->data + HDR_VALUE_SIZE);
		h->root = le64_at(h->data + HDR_ROOT);
		if (h->node_size < NODE_MIN || h->node_size > PART_MAX ||
		    h->child_size < ENTRY_MIN || h->child_size > PART_MAX ||
		    h->value_size < ENTRY_MIN || h->value_size > PART_MAX)
			w = "node or entry size out of range";
		else if (!node_at(h, h->root, &root))
			w = "root node out of range";
	}
	if (why)
		*why = w;
	return w ? -EBADMSG : 0;
}

static int read_file(struct hwdb *h, int fd, const char **why)
{
	struct stat st;
	unsigned char *buf;
	ssize_t n;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)HWDB_FILE_MAX) {
		*why = S_ISREG(st.st_mode) ? "larger than initdev reads" : "not a regular file";
		return S_ISREG(st.st_mode) ? -EFBIG : -EBADMSG;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf)
		return -ENOMEM;
	n = read_full(fd, buf, (size_t)st.st_size);
	if (n < 0) {
		free(buf);
		return (int)n;
	}
	r = hwdb_load(h, buf, (size_t)n, why);
	h->borrowed = 0;
	if (r < 0)
		hwdb_close(h);
	return r;
}

int hwdb_open(struct hwdb *h, const char *const *paths, const char **found, const char **why)
{
	const char *w = NULL;
	int r = -ENOENT;

	memset(h, 0, sizeof(*h));
	for (; *paths; paths++) {
		int fd = open(*paths, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

		if (fd < 0 && errno == ENOENT)
			continue;
		if (found)
			*found = *paths;
		if (fd < 0)
			return -errno;
		r = read_file(h, fd, &w);
		close(fd);
		break;
	}
	if (why)
		*why = w;
	return r;
}

void hwdb_close(struct hwdb *h)
{
	if (!h->borrowed)
		free(h->data);
	memset(h, 0, sizeof(*h));
}

/* ---- lookup ---------------------------------------------------------- */

struct walk {
	const struct hwdb *h;
	char pattern[PATTERN_MAX];
	size_t len;
	size_t visits, max_visits;
	size_t n;
	int err;
	struct {
		const char *key; /* without its leading space */
		uint64_t entry;
	} props[HWDB_PROPS_MAX];
};

static bool visit(struct walk *w, uint64_t off, struct node *n)
{
	if (w->err)
		return false;
	if (++w->visits > w->max_visits || !node_at(w->h, off, n)) {
		w->err = -EBADMSG;
		return false;
	}
	return true;
}

static bool pattern_add(struct walk *w, const char *s, size_t len)
{
	if (w->len + len >= sizeof(w->pattern)) {
		w->err = -EBADMSG;
		return false;
	}
	memcpy(w->pattern + w->len, s, len);
	w->len += len;
	w->pattern[w->len] = '\0';
	return true;
}

static void pattern_cut(struct walk *w, size_t len)
{
	w->len -= len;
	w->pattern[w->len] = '\0';
}

/* The later entry of a key replaces the earlier unless it is of lower priority. */
static bool lower(const struct hwdb *h, uint64_t e, uint64_t old)
{
	const unsigned char *a = h->data + e, *b = h->data + old;
	uint16_t pa, pb;
	uint32_t la, lb;

	if (h->value_size < ENTRY2_LEN)
		return false;
	pa = le16_at(a + ENTRY_PRIORITY);
	pb = le16_at(b + ENTRY_PRIORITY);
	la = le32_at(a + ENTRY_LINE);
	lb = le32_at(b + ENTRY_LINE);
	if (pa == 0) { /* format 2: files are numbered in priority order */
		uint64_t fa = le64_at(a + ENTRY_FILENAME), fb = le64_at(b + ENTRY_FILENAME);

		return fa < fb || (fa == fb && la < lb);
	}
	return pa < pb || (pa == pb && la < lb);
}

static void add_value(struct walk *w, uint64_t e)
{
	const struct hwdb *h = w->h;
	const char *key = string_at(h, le64_at(h->data + e));
	size_t i;

	if (!key || !string_at(h, le64_at(h->data + e + 8))) {
		w->err = -EBADMSG;
		return;
	}
	/* keys without the leading space are for future use: skipped */
	if (key[0] != ' ')
		return;
	key++;
	for (i = 0; i < w->n && strcmp(w->props[i].key, key) != 0; i++)
		;
	if (i < w->n) {
		if (!lower(h, e, w->props[i].entry))
			w->props[i].entry = e;
		return;
	}
	if (w->n == HWDB_PROPS_MAX) {
		w->err = -E2BIG;
		return;
	}
	w->props[w->n].key = key;
	w->props[w->n++].entry = e;
}

static void add_values(struct walk *w, const struct node *n)
{
	for (uint64_t i = 0; i < n->values && !w->err; i++)
		add_value(w, n->values_off + i * w->h->value_size);
}

/* sd-hwdb's child search: a binary search over the children by character. */
static bool child(struct walk *w, const struct node *n, unsigned char c, struct node *out)
{
	const struct hwdb *h = w->h;
	size_t lo = 0, hi = n->children;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const unsigned char *e = h->data + n->children_off + mid * h->child_size;

		if (c < e[0])
			hi = mid;
		else if (c > e[0])
			lo = mid + 1;
		else
			return visit(w, le64_at(e + CHILD_OFF), out);
	}
	return false;
}

/* Every pattern below n (from byte p of its prefix) that matches search. */
static void match_below(struct walk *w, const struct node *n, size_t p, const char *search,
			unsigned int depth)
{
	size_t len = strlen(n->prefix + p);

	if (depth > PATTERN_MAX || !pattern_add(w, n->prefix + p, len)) {
		w->err = -EBADMSG;
		return;
	}
	for (unsigned int i = 0; i < n->children && !w->err; i++) {
		const unsigned char *e = w->h->data + n->children_off +
					 (uint64_t)i * w->h->child_size;
		struct node c;

		if (!pattern_add(w, (const char *)e, 1) || !visit(w, le64_at(e + CHILD_OFF), &c))
			return;
		match_below(w, &c, 0, search, depth + 1);
		pattern_cut(w, 1);
	}
	if (!w->err && n->values && fnmatch(w->pattern, search, 0) == 0)
		add_values(w, n);
	if (!w->err)
		pattern_cut(w, len);
}

/* The glob children of n ('*', '?', '['): their patterns against the rest of search. */
static void match_globs(struct walk *w, const struct node *n, const char *rest)
{
	static const char globs[] = "*?[";
	struct node c;

	for (const char *g = globs; *g && !w->err; g++) {
		if (!child(w, n, (unsigned char)*g, &c))
			continue;
		if (!pattern_add(w, g, 1))
			return;
		match_below(w, &c, 0, rest, 1);
		if (!w->err)
			pattern_cut(w, 1);
	}
}

static void search(struct walk *w, const char *s)
{
	struct node n;
	size_t i = 0;

	if (!visit(w, w->h->root, &n))
		return;
	for (;;) {
		for (size_t p = 0; n.prefix[p]; p++) {
			char c = n.prefix[p];

			if (c == '*' || c == '?' || c == '[') {
				match_below(w, &n, p, s + i + p, 1);
				return;
			}
			if (c != s[i + p])
				return;
		}
		i += strlen(n.prefix);
		match_globs(w, &n, s + i);
		if (w->err)
			return;
		if (s[i] == '\0') {
			add_values(w, &n);
			return;
		}
		if (!child(w, &n, (unsigned char)s[i], &n))
			return;
		i++;
	}
}

int hwdb_lookup(const struct hwdb *h, const char *modalias, hwdb_prop_fn fn, void *u)
{
	struct walk *w;
	int r = 0;

	if (!h->data)
		return -ENOENT;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->h = h;
	w->max_visits = h->size / h->node_size + 1;
	search(w, modalias);
	r = w->err;
	for (size_t i = 0; !r && i < w->n; i++) {
		const char *value = (const char *)h->data +
				    le64_at(h->data + w->props[i].entry + 8);

		r = fn(u, w->props[i].key, value);
	}
	if (!r)
		r = (int)w->n;
	free(w);
	return r;
}
