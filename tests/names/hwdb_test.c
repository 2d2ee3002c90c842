/* SPDX-License-Identifier: MIT */
/*
 * hwdb.bin read natively: lookups give what systemd-hwdb query (systemd
 * 252) gives over the same file (tests/fixtures/hwdb), and over the host's
 * own hwdb.bin when there is one; truncated files, offsets out of range,
 * absurd sizes, cycles and every single-byte corruption are refused or
 * bounded, never read past.
 */
#include <atf-c.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin-fixture.h"
#include "names/hwdb.h"

#define OUT_MAX 4096

static void fixture(const atf_tc_t *tc, const char *name, char *out, size_t size)
{
	(void)tc;
	snprintf(out, size, "%s/%s", HWDB_FIXTURE_DIR, name);
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	ATF_REQUIRE_MSG(f, "%s", path);
	ATF_REQUIRE(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ATF_REQUIRE(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static int collect(void *u, const char *key, const char *value)
{
	char *out = u;
	size_t len = strlen(out);

	ATF_REQUIRE((size_t)snprintf(out + len, OUT_MAX - len, "%s=%s\n", key, value) <
		    OUT_MAX - len);
	return 0;
}

static void compare_query(const char *modalias, const char *exp, void *u)
{
	char out[OUT_MAX] = "";

	ATF_CHECK(hwdb_lookup(u, modalias, collect, out) >= 0);
	ATF_CHECK_MSG(strcmp(out, exp) == 0, "%s:\n%s--- systemd-hwdb\n%s", modalias, out, exp);
}

ATF_TC_WITHOUT_HEAD(lookups_match_systemd_hwdb);
ATF_TC_BODY(lookups_match_systemd_hwdb, tc)
{
	static const char *const paths[] = { "none/hwdb.bin", HWDB_FIXTURE_DIR "/test-hwdb.bin",
					     NULL };
	const char *found = NULL;
	struct hwdb h;

	ATF_REQUIRE_EQ(hwdb_open(&h, paths, &found, NULL), 0);
	ATF_CHECK_STREQ(found, paths[1]);
	ATF_CHECK_EQ(bx_blocks(HWDB_FIXTURE_DIR "/queries.expected", compare_query, &h), 16);
	hwdb_close(&h);
}

ATF_TC_WITHOUT_HEAD(missing_is_enoent);
ATF_TC_BODY(missing_is_enoent, tc)
{
	static const char *const paths[] = { "none/a", "none/b", NULL };
	const char *found = NULL;
	struct hwdb h;

	(void)tc;
	ATF_CHECK_EQ(hwdb_open(&h, paths, &found, NULL), -ENOENT);
	ATF_CHECK(found == NULL);
	ATF_CHECK_EQ(hwdb_lookup(&h, "usb:v1D6B", collect, NULL), -ENOENT);
	hwdb_close(&h);
}

/* The host's hwdb.bin against the host's systemd-hwdb, where both exist. */
ATF_TC_WITHOUT_HEAD(host_hwdb_matches_systemd_hwdb);
ATF_TC_BODY(host_hwdb_matches_systemd_hwdb, tc)
{
	static const char *const modaliases[] = {
		"usb:v1D6Bp0003d0601dc09dsc00dp03ic09isc00ip00in00",
		"usb:v0627p0001:QEMU USB Keyboard",
		"usb:v046DpC52B*",
		"pci:v00008086d0000100Esv00008086sd0000001Ebc02sc00i00",
		"pci:v00001AF4d00001041sv00001AF4sd00001100bc01sc00i00",
		"input:b0003v046DpC52Be0111-e0,1,2,4,11,14,k71,72,73,ram4,lsfw",
		"evdev:atkbd:dmi:bvnSeaBIOS:bvr1.16:bd04/01/2014:svnQEMU:pnStandardPC:pvr:cvnQEMU:ct1:cvr:",
		"acpi:PNP0303:",
		"OUI:000C29",
		"net:naming:drvirtio_net",
		"nothing:at:all",
		NULL,
	};
	const char *found = NULL, *why = NULL;
	struct hwdb h;

	if (access("/usr/bin/systemd-hwdb", X_OK) != 0 && access("/bin/systemd-hwdb", X_OK) != 0)
		atf_tc_skip("no systemd-hwdb on this host");
	if (hwdb_open(&h, hwdb_default_paths, &found, &why) != 0)
		atf_tc_skip("no hwdb.bin on this host");
	for (const char *const *m = modaliases; *m; m++) {
		char cmd[512], exp[OUT_MAX] = "", out[OUT_MAX] = "";
		FILE *p;
		size_t n;

		snprintf(cmd, sizeof(cmd), "systemd-hwdb query '%s' 2>/dev/null", *m);
		p = popen(cmd, "r");
		ATF_REQUIRE(p);
		n = fread(exp, 1, sizeof(exp) - 1, p);
		exp[n] = '\0';
		pclose(p);
		ATF_CHECK(hwdb_lookup(&h, *m, collect, out) >= 0);
		ATF_CHECK_MSG(strcmp(out, exp) == 0, "%s (%s):\n%s--- systemd-hwdb\n%s", *m, found,
			      out, exp);
	}
	hwdb_close(&h);
	(void)tc;
}

static int lookup_all(const struct hwdb *h)
{
	static const char *const m[] = {
		"usb:v1D6Bp0003d0601", "pci:v00008086d0000100E",
		"pci:v00001AB4d",      "evdev:name:Test pad:dmi:bvnX",
		"exact:match",         "usb:v0627p0001:QEMU USB Keyboard"
	};
	char out[OUT_MAX];
	int worst = 0;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		int r;

		out[0] = '\0';
		r = hwdb_lookup(h, m[i], collect, out);
		ATF_CHECK_MSG(r >= 0 || r == -EBADMSG || r == -E2BIG, "%s: %d", m[i], r);
		worst = r < worst ? r : worst;
	}
	return worst;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

ATF_TC_WITHOUT_HEAD(truncated_refused);
ATF_TC_BODY(truncated_refused, tc)
{
	char path[4096];
	size_t size;
	unsigned char *bin;
	struct hwdb h;

	fixture(tc, "test-hwdb.bin", path, sizeof(path));
	bin = slurp(path, &size);
	for (size_t n = 0; n < size; n++) {
		const char *why = NULL;
		unsigned char *copy = malloc(n ? n : 1);

		memcpy(copy, bin, n);
		/* as cut: the header's size says otherwise */
		ATF_CHECK_EQ(hwdb_load(&h, copy, n, &why), -EBADMSG);
		ATF_CHECK(why != NULL);
		/* cut with the header's size made to agree: refused or bounded */
		if (n >= 80) {
			put64(copy + 16, n);
			if (hwdb_load(&h, copy, n, &why) == 0)
				lookup_all(&h);
		}
		free(copy);
	}
	free(bin);
}

ATF_TC_WITHOUT_HEAD(offsets_out_of_range_refused);
ATF_TC_BODY(offsets_out_of_range_refused, tc)
{
	char path[4096];
	size_t size;
	unsigned char *bin;
	struct hwdb h;
	const char *why;
	uint64_t root;

	fixture(tc, "test-hwdb.bin", path, sizeof(path));
	bin = slurp(path, &size);
	root = get64(bin + 56);
	/* the root node past the end, or running over it */
	put64(bin + 56, size + 100);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + 56, size - 8);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + 56, UINT64_MAX - 4);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + 56, root);
	/* node and entry sizes that cannot be */
	put64(bin + 32, 3);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + 32, UINT64_MAX);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + 32, 24);
	/* the root's prefix string out of range */
	put64(bin + root, size);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + root, 0); /* "no prefix" is allowed */
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), 0);
	/* a value count far past the end */
	put64(bin + root + 16, UINT64_MAX / 2);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), -EBADMSG);
	put64(bin + root + 16, 0);
	ATF_CHECK_EQ(hwdb_load(&h, bin, size, &why), 0);
	/* every child of the root pointing past the end: lookups stop, corrupt */
	for (unsigned int i = 0; i < bin[root + 8]; i++)
		put64(bin + root + 24 + 16 * i + 8, size + 1);
	ATF_CHECK_EQ(hwdb_lookup(&h, "usb:v1D6B", collect, (char[OUT_MAX]){ 0 }), -EBADMSG);
	/* ... or back to the root: a cycle, bounded */
	for (unsigned int i = 0; i < bin[root + 8]; i++)
		put64(bin + root + 24 + 16 * i + 8, root);
	ATF_CHECK(hwdb_lookup(&h, "usb:v1D6B", collect, (char[OUT_MAX]){ 0 }) <= 0);
	ATF_CHECK(hwdb_lookup(&h, "*", collect, (char[OUT_MAX]){ 0 }) <= 0);
	free(bin);
}

ATF_TC_WITHOUT_HEAD(every_byte_corrupted_bounded);
ATF_TC_BODY(every_byte_corrupted_bounded, tc)
{
	char path[4096];
	size_t size;
	unsigned char *bin;
	struct hwdb h;
	const char *why;

	fixture(tc, "test-hwdb.bin", path, sizeof(path));
	bin = slurp(path, &size);
	for (size_t i = 0; i < size; i++) {
		static const unsigned char flips[] = { 0xff, 0x80, 0x01 };

		for (size_t k = 0; k < sizeof(flips); k++) {
			bin[i] ^= flips[k];
			if (hwdb_load(&h, bin, size, &why) == 0)
				lookup_all(&h);
			bin[i] ^= flips[k];
		}
	}
	free(bin);
}

ATF_TC_WITHOUT_HEAD(not_regular_refused);
ATF_TC_BODY(not_regular_refused, tc)
{
	static const char *const paths[] = { "/dev/null", NULL };
	struct hwdb h;
	const char *why = NULL;

	(void)tc;
	ATF_CHECK_EQ(hwdb_open(&h, paths, NULL, &why), -EBADMSG);
	ATF_CHECK(why != NULL);
	hwdb_close(&h);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lookups_match_systemd_hwdb);
	ATF_TP_ADD_TC(tp, missing_is_enoent);
	ATF_TP_ADD_TC(tp, host_hwdb_matches_systemd_hwdb);
	ATF_TP_ADD_TC(tp, truncated_refused);
	ATF_TP_ADD_TC(tp, offsets_out_of_range_refused);
	ATF_TP_ADD_TC(tp, every_byte_corrupted_bounded);
	ATF_TP_ADD_TC(tp, not_regular_refused);
	return atf_no_error();
}
