# Host telemetry: fixture trees of /proc and /sys in fixtures/telemetry, and a
# check on this machine's own; the real-machine part writes under the build tree.
rb_unit_test(test_telemetry unit/test_telemetry.c)
target_link_libraries(test_telemetry PRIVATE rb_agent)
target_compile_definitions(test_telemetry PRIVATE
  RB_TEL_FIXTURES="${CMAKE_CURRENT_LIST_DIR}/fixtures/telemetry"
  RB_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/telemetry-tmp")
# Drive health: smartctl --json fixtures (fixtures/smart/ORIGIN.md) and
# stand-in smartctl scripts written under the build tree.
rb_unit_test(test_health unit/test_health.c)
target_link_libraries(test_health PRIVATE rb_agent)
target_compile_definitions(test_health PRIVATE
  RB_SMART_FIXTURES="${CMAKE_CURRENT_LIST_DIR}/fixtures/smart"
  RB_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/health-tmp")
