#!/bin/sh
# vmtest-modes: numa
# vmtest-timeout: 120
# The unit tests whose live cases need a kernel this build machine lacks
# (DAMON vaddr with a free kdamond slot, soft-dirty: the 6.12 guest has
# both), run where they can run. Only the live cases: their fixture-tree
# siblings run on the host, whose source paths the guest does not have.
# unit_live.check.py wants each named test run (not skipped) and passed.
set -u
heat_kernel_test --gtest_filter='*.Live*' --gtest_output=json:heat_kernel.json
