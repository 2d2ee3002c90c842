#! /usr/bin/env atf-sh
# SPDX-License-Identifier: MIT
# scripts/check-line-writers, the guard of CODING-STYLE.md's "Line-based
# files": the source tree passes it, and each kind of new writer fails it.

# The source tree: abs_top_srcdir of the build tree the test runs from.
srctop() {
	sed -n 's/^abs_top_srcdir = //p' "$(atf_get_srcdir)/../../Makefile"
}

# A copy of the tree's sources and the guard, to break.
copy_tree() {
	top=$(srctop)
	[ -d "$top/src" ] || atf_fail "no source tree at '$top'"
	mkdir scripts && cp "$top/scripts/check-line-writers" scripts/ && cp -R "$top/src" .
}

atf_test_case source_tree_passes
source_tree_passes_head() {
	atf_set descr "every writer of a line-based file in src/ goes through its guard; no line-end check of its own"
}
source_tree_passes_body() {
	top=$(srctop)
	atf_check -s exit:0 -o match:"writers, each through its guard; no other line-end check" \
		"$top/scripts/check-line-writers" "$top"
}

atf_test_case new_writers_refused
new_writers_refused_head() {
	atf_set descr "an unlisted %s writer, a line-end check of its own, and a writer that drops its guard each fail the guard, named"
}
new_writers_refused_body() {
	copy_tree
	atf_check -s exit:0 -o ignore scripts/check-line-writers .
	cat > src/util/evil.c <<'C'
static void put(FILE *f, const char *v)
{
	if (!strchr(v, '\n'))
		fprintf(f, "E:%s\n", v);
}
C
	sed -i '/#include "util\/oneline.h"/d' src/engine/info.c
	atf_check -s exit:1 -o save:out scripts/check-line-writers .
	grep -q "src/util/evil.c:3: a line-end check of its own" out || atf_fail "check not named: $(cat out)"
	grep -q "src/util/evil.c: formats text with %s and is not listed" out ||
		atf_fail "writer not named: $(cat out)"
	grep -q "src/engine/info.c: listed with util/oneline.h but does not include it" out ||
		atf_fail "lost guard not named: $(cat out)"
	grep -q "3 problem(s)" out || atf_fail "count: $(cat out)"
}

atf_init_test_cases() {
	atf_add_test_case source_tree_passes
	atf_add_test_case new_writers_refused
}
