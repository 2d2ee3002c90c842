/* SPDX-License-Identifier: MIT */
#include "rules/props.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static struct prop *find(const struct props *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].key, key) == 0)
			return &p->v[i];
	return NULL;
}

static void drop(struct props *p, struct prop *e)
{
	free(e->key);
	free(e->value);
	memmove(e, e + 1, (size_t)(p->v + p->n - (e + 1)) * sizeof(*e));
	p->n--;
}

static int append(struct props *p, const char *key, char *value, bool db)
{
	char *k;

	if (p->n >= PROPS_MAX)
		return -E2BIG;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct prop *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	k = strdup(key);
	if (!k)
		return -ENOMEM;
	p->v[p->n++] = (struct prop){ .key = k, .value = value, .db = db };
	return 0;
}

int props_set(struct props *p, const char *key, const char *value, bool db)
{
	return props_set_long(p, key, value, db, PROPS_VALUE_MAX);
}

int props_set_long(struct props *p, const char *key, const char *value, bool db, size_t max)
{
	struct prop *e;
	char *v;
	int r;

	if (!key[0] || strchr(key, '=') || strlen(key) >= PROPS_KEY_MAX)
		return -EINVAL;
	e = find(p, key);
	if (!value) {
		if (e)
			drop(p, e);
		return 0;
	}
	if (strlen(value) >= max)
		return -E2BIG;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	if (e) {
		free(e->value);
		e->value = v;
		e->db = e->db || db;
		return 0;
	}
	r = append(p, key, v, db);
	if (r < 0)
		free(v);
	return r;
}

int props_set_rule(struct props *p, const char *key, const char *value)
{
	if (UDEV_COMPAT >= 257 && value && !value[0])
		value = NULL;
	return props_set(p, key, value, key[0] != '.');
}

int props_set_pair(struct props *p, const char *pair, bool db)
{
	const char *eq = strchr(pair, '=');
	char key[PROPS_KEY_MAX];

	if (!eq || eq == pair || (size_t)(eq - pair) >= sizeof(key))
		return -EINVAL;
	memcpy(key, pair, (size_t)(eq - pair));
	key[eq - pair] = '\0';
	return props_set(p, key, eq + 1, db);
}

const char *props_get(const struct props *p, const char *key)
{
	const struct prop *e = find(p, key);

	return e ? e->value : NULL;
}

void props_clear(struct props *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].key);
		free(p->v[i].value);
	}
	free(p->v);
	*p = (struct props)PROPS_INIT;
}

int props_copy(struct props *dst, const struct props *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = props_set(dst, src->v[i].key, src->v[i].value, src->v[i].db);

		if (r < 0)
			return r;
	}
	return 0;
}

int strv_add(struct strv *s, const char *str)
{
	char *d;

	if (strv_contains(s, str))
		return 0;
	if (s->n >= STRV_MAX || s->bytes + strlen(str) + 1 > STRV_BYTES_MAX)
		return -E2BIG;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	d = strdup(str);
	if (!d)
		return -ENOMEM;
	s->v[s->n++] = d;
	s->bytes += strlen(d) + 1;
	return 1;
}

bool strv_contains(const struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

void strv_remove(struct strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->v[i], str) != 0)
			continue;
		s->bytes -= strlen(s->v[i]) + 1;
		free(s->v[i]);
		memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(char *));
		s->n--;
		return;
	}
}

void strv_clear(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	*s = (struct strv)STRV_INIT;
}

int strv_copy(struct strv *dst, const struct strv *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = strv_add(dst, src->v[i]);

		if (r < 0)
			return r;
	}
	return 0;
}
