/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the reader of udev's database files
 * (src/rules/db-file.c: `rules test --udev-db`, the udev-suite stand-in).
 * Whatever the file holds: nothing read holds a line end ('\n' or '\r':
 * sd-device ends a line at both), every link is "/dev/" and a name, every
 * property is within the record's bounds, and the text split at its first
 * line end gives a record no larger than the whole one (lines are read one
 * at a time, nothing spans two).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules/db-file.h"

#define CHECK(cond)              \
	do {                     \
		if (!(cond))     \
			abort(); \
	} while (0)

static void check_text(const char *s)
{
	CHECK(strpbrk(s, "\n\r") == NULL);
}

static void check_record(const struct rules_record *rec)
{
	CHECK(rec->props.n <= PROPS_MAX);
	for (size_t i = 0; i < rec->props.n; i++) {
		check_text(rec->props.v[i].key);
		check_text(rec->props.v[i].value);
		CHECK(rec->props.v[i].key[0] && !strchr(rec->props.v[i].key, '='));
		CHECK(strlen(rec->props.v[i].value) < PROPS_VALUE_MAX);
		CHECK(rec->props.v[i].db);
	}
	for (size_t i = 0; i < rec->links.n; i++) {
		check_text(rec->links.v[i]);
		CHECK(strncmp(rec->links.v[i], "/dev/", 5) == 0);
		CHECK(strlen(rec->links.v[i]) < RULES_PATH_MAX);
	}
	for (size_t i = 0; i < rec->tags.n; i++)
		check_text(rec->tags.v[i]);
	CHECK(rec->links.bytes <= STRV_BYTES_MAX && rec->tags.bytes <= STRV_BYTES_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rules_record whole, head;
	const char *text = (const char *)data;
	size_t cut = 0;

	if (size > RULES_DB_FILE_MAX)
		return 0;
	if (rules_db_file_parse(text, size, &whole) < 0)
		return 0;
	check_record(&whole);
	while (cut < size && text[cut] != '\n' && text[cut] != '\r')
		cut++;
	if (rules_db_file_parse(text, cut < size ? cut + 1 : size, &head) == 0) {
		check_record(&head);
		CHECK(head.props.n + head.links.n + head.tags.n <= 1);
		CHECK(head.props.n <= whole.props.n && head.links.n <= whole.links.n &&
		      head.tags.n <= whole.tags.n);
		rules_record_free(&head);
	}
	rules_record_free(&whole);
	return 0;
}
