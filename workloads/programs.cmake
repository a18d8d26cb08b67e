# Ground-truth workload programs copied into the emulated machine (tier-*,
# see tests/vm/programs.txt) for the migration scenarios.
#   tier-touch       a process with a verifiable buffer bound to one node
#   tier-naive-move  one move_pages(2) call per page: the naive baseline
add_executable(tier-touch tier-touch.cpp touch_memory.cpp)
target_link_libraries(tier-touch PRIVATE tier_warnings numa Threads::Threads)

#   tier-fragment    free memory on a node in pieces no huge page fits in
add_executable(tier-fragment tier-fragment.cpp touch_memory.cpp)
target_link_libraries(tier-fragment PRIVATE tier_warnings numa)

add_executable(tier-naive-move tier-naive-move.cpp)
target_link_libraries(tier-naive-move PRIVATE tier_warnings numa)

# tier-kernel-migrate  one migrate_pages(2) call, timed: the kernel baseline
add_executable(tier-kernel-migrate tier-kernel-migrate.cpp)
target_link_libraries(tier-kernel-migrate PRIVATE tier_warnings numa)
