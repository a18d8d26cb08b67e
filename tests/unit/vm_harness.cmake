# The emulated machine's host-side harness (tests/vm/lib), tested without a
# guest: the reader of the guest's result stream.
add_test(NAME VmHarness.ResultsStream
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/vm/lib/results_test.py)
set_tests_properties(VmHarness.ResultsStream PROPERTIES LABELS unit)
# The head-to-head's reading of a suite program's run (report lines, checks).
add_test(NAME VmHarness.HeadToHeadSuiteRun
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/vm/lib/h2hcheck_test.py)
set_tests_properties(VmHarness.HeadToHeadSuiteRun PROPERTIES LABELS unit)
