# castellan-save-commands: the save commands (saves, resume, replay,
# export, import, campaign), the session journal and the save lines of
# `castellan bench`.  Included from host/CMakeLists.txt.
add_library(castellan-save-commands STATIC
  ${CMAKE_CURRENT_LIST_DIR}/bench_saves.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_import.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_replay.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_resume.c
  ${CMAKE_CURRENT_LIST_DIR}/cmd_saves.c
  ${CMAKE_CURRENT_LIST_DIR}/journal.c
  ${CMAKE_CURRENT_LIST_DIR}/revive.c
  ${CMAKE_CURRENT_LIST_DIR}/saves_cli.c)
target_include_directories(castellan-save-commands PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(castellan-save-commands PUBLIC castellan-saves castellan-host
  castellan-loader castellan-config)
target_compile_definitions(castellan-save-commands PRIVATE
  CASTELLAN_VERSION="${PROJECT_VERSION}")
# bench.c lists the save section: the two libraries need each other.
target_link_libraries(castellan-host PUBLIC castellan-save-commands)
