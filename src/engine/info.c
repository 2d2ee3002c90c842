/* SPDX-License-Identifier: MIT */
#include "engine/info.h"

#include <stdio.h>
#include <string.h>

#include "engine/lookup.h"
#include "util/strbuf.h"

static void prop(struct strbuf *b, const char *key, const char *value)
{
	if (value && value[0])
		strbuf_printf(b, "%s=%s\n", key, value);
}

/* ID_FS_*, ID_PART_TABLE_*, ID_PART_ENTRY_*: as udev's blkid builtin names them. */
static void probe_props(struct strbuf *b, const struct probe_result *p)
{
	char num[16];

	prop(b, "ID_FS_TYPE", p->fs_type);
	prop(b, "ID_FS_USAGE", p->fs_usage);
	prop(b, "ID_FS_VERSION", p->fs_version);
	prop(b, "ID_FS_UUID", p->fs_uuid);
	prop(b, "ID_FS_UUID_ENC", p->fs_uuid_enc);
	prop(b, "ID_FS_UUID_SUB", p->fs_uuid_sub);
	prop(b, "ID_FS_LABEL", p->fs_label);
	prop(b, "ID_FS_LABEL_ENC", p->fs_label_enc);
	prop(b, "ID_PART_TABLE_TYPE", p->pt_type);
	prop(b, "ID_PART_TABLE_UUID", p->pt_uuid);
	if (!p->has_part_entry)
		return;
	prop(b, "ID_PART_ENTRY_SCHEME", p->part_scheme);
	prop(b, "ID_PART_ENTRY_UUID", p->part_uuid);
	prop(b, "ID_PART_ENTRY_NAME", p->part_name_enc);
	prop(b, "ID_PART_ENTRY_TYPE", p->part_type);
	snprintf(num, sizeof(num), "%u", p->part_number);
	prop(b, "ID_PART_ENTRY_NUMBER", num);
}

/* Shown already (identity, or the native probe's): not repeated from the rules' record. */
static bool shown(const char *key, bool probed)
{
	static const char *const fixed[] = { "DEVPATH", "DEVNAME", "MAJOR", "MINOR", "SUBSYSTEM",
					     "DEVTYPE", NULL };

	for (const char *const *f = fixed; *f; f++)
		if (strcmp(key, *f) == 0)
			return true;
	return probed && (strncmp(key, "ID_FS_", 6) == 0 || strncmp(key, "ID_PART_", 8) == 0);
}

/* What the udev rules set for the device (kept as udev's database keeps it). */
static void rules_props(struct engine *e, struct strbuf *b, const char *devpath, bool probed)
{
	struct rules_record rec;

	if (!e->handlers_up || !rules_db_get(&e->handlers.rules.db, devpath, &rec))
		return;
	for (size_t i = 0; i < rec.props.n; i++)
		if (!shown(rec.props.v[i].key, probed))
			prop(b, rec.props.v[i].key, rec.props.v[i].value);
	rules_record_free(&rec);
}

int info_properties(struct engine *e, const char *name, char *buf, size_t size)
{
	struct engine_device d;
	struct strbuf b;
	char num[16];
	int r;

	strbuf_init(&b, buf, size);
	r = engine_lookup(e, name, &d);
	if (r < 0)
		return r;
	prop(&b, "DEVPATH", d.devpath);
	strbuf_printf(&b, "DEVNAME=/dev/%s\n", d.devname);
	snprintf(num, sizeof(num), "%u", d.major);
	prop(&b, "MAJOR", num);
	snprintf(num, sizeof(num), "%u", d.minor);
	prop(&b, "MINOR", num);
	prop(&b, "SUBSYSTEM", d.subsystem);
	prop(&b, "DEVTYPE", d.devtype);
	if (d.has_disk && d.disk.probed)
		probe_props(&b, &d.disk.probe);
	rules_props(e, &b, d.devpath, d.has_disk && d.disk.probed);
	return (int)b.len;
}
