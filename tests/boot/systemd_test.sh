#! /usr/bin/env atf-sh
# placeholder
atf_test_case x
x_body() { atf_skip "todo"; }
atf_init_test_cases() { atf_add_test_case x; }
