# castellan-loader: finding, checking and loading plugins, resolving
# expansions, and `castellan plugins`.  Included from host/CMakeLists.txt.
add_library(castellan-loader STATIC
  ${CMAKE_CURRENT_LIST_DIR}/cmd_plugins.c
  ${CMAKE_CURRENT_LIST_DIR}/install_dirs.c
  ${CMAKE_CURRENT_LIST_DIR}/load.c
  ${CMAKE_CURRENT_LIST_DIR}/manifest.c
  ${CMAKE_CURRENT_LIST_DIR}/registry.c
  ${CMAKE_CURRENT_LIST_DIR}/resolve.c)
target_include_directories(castellan-loader PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(castellan-loader PUBLIC castellan::plugin-api castellan-text
  PkgConfig::INIH ${CMAKE_DL_LIBS})
# The install location is absolute so an installed castellan finds its
# plugins wherever it is run from.
if(IS_ABSOLUTE "${CASTELLAN_PLUGIN_INSTALL_DIR}")
  set(cas_plugin_install_abs "${CASTELLAN_PLUGIN_INSTALL_DIR}")
else()
  set(cas_plugin_install_abs "${CMAKE_INSTALL_PREFIX}/${CASTELLAN_PLUGIN_INSTALL_DIR}")
endif()
# ... and relative to the installed executable, which is tried first so a
# moved installation still finds its own plugins.
file(RELATIVE_PATH cas_plugin_from_bin "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}"
     "${cas_plugin_install_abs}")
target_compile_definitions(castellan-loader PRIVATE
  CASTELLAN_PLUGIN_INSTALL_DIR="${cas_plugin_install_abs}"
  CASTELLAN_PLUGIN_DIR_FROM_BIN="${cas_plugin_from_bin}"
  CASTELLAN_BUILD_PLUGIN_DIR="${CASTELLAN_BUILD_PLUGIN_DIR}")

# cas_plugin_private(TARGET PATH...) — the loader refuses a plugin whose
# folder, manifest or library group or others may write.  Under a umask
# like 002 the build tree would create them so; after TARGET links, take
# group and other write access away from PATH... and the library.
function(cas_plugin_private target)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND chmod go-w ${ARGN} $<TARGET_FILE:${target}> VERBATIM)
endfunction()
