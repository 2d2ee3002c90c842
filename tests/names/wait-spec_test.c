/* SPDX-License-Identifier: MIT */
/* initdev wait SPEC -> a name below /dev, encoded as udev names links. */
#include <atf-c.h>
#include <string.h>

#include "names/wait-spec.h"

static const char *name_of(const char *spec)
{
	static char name[WAIT_NAME_MAX];
	const char *why;

	return wait_spec_name(spec, name, sizeof(name), &why) == 0 ? name : NULL;
}

ATF_TC_WITHOUT_HEAD(tags_encoded);
ATF_TC_BODY(tags_encoded, tc)
{
	ATF_CHECK_STREQ(name_of("UUID=0a0a-1"), "disk/by-uuid/0a0a-1");
	ATF_CHECK_STREQ(name_of("LABEL=my disk"), "disk/by-label/my\\x20disk");
	ATF_CHECK_STREQ(name_of("LABEL=a/b"), "disk/by-label/a\\x2fb");
	ATF_CHECK_STREQ(name_of("LABEL=../../etc"), "disk/by-label/..\\x2f..\\x2fetc");
	ATF_CHECK_STREQ(name_of("PARTUUID=1d15c0de-01"), "disk/by-partuuid/1d15c0de-01");
	ATF_CHECK_STREQ(name_of("PARTLABEL=initdev root"), "disk/by-partlabel/initdev\\x20root");
}

ATF_TC_WITHOUT_HEAD(paths_and_numbers);
ATF_TC_BODY(paths_and_numbers, tc)
{
	ATF_CHECK_STREQ(name_of("/dev/vda1"), "vda1");
	ATF_CHECK_STREQ(name_of("/dev/disk/by-id/virtio-x"), "disk/by-id/virtio-x");
	ATF_CHECK_STREQ(name_of("8:1"), "block/8:1");
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	const char *bad[] = { "", "UUID=", "LABEL=..", "LABEL=.", "/dev/", "/dev/../etc/passwd",
			      "/dev/a//b", "/dev/a/./b", "/etc/passwd", "8", "8:x", "-1:2",
			      "root", "LABEL=" };
	char long_label[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ATF_CHECK_MSG(name_of(bad[i]) == NULL, "accepted '%s'", bad[i]);
	memset(long_label, 'x', sizeof(long_label) - 1);
	memcpy(long_label, "LABEL=", 6);
	long_label[sizeof(long_label) - 1] = '\0';
	ATF_CHECK(name_of(long_label) == NULL);
}

ATF_TC_WITHOUT_HEAD(name_safe);
ATF_TC_BODY(name_safe, tc)
{
	ATF_CHECK(wait_name_safe("disk/by-uuid/x"));
	ATF_CHECK(!wait_name_safe("../x"));
	ATF_CHECK(!wait_name_safe("disk/../../x"));
	ATF_CHECK(!wait_name_safe("/abs"));
	ATF_CHECK(!wait_name_safe(""));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, tags_encoded);
	ATF_TP_ADD_TC(tp, paths_and_numbers);
	ATF_TP_ADD_TC(tp, refused);
	ATF_TP_ADD_TC(tp, name_safe);
	return atf_no_error();
}
