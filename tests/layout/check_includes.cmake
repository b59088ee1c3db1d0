# check_includes.cmake — the include graph is a tree:
#   plugins -> plugin-api;  config -> plugin-api (and inih);
#   saves -> plugin-api (and SQLite);  host -> config, saves, plugin-api.
# A quoted #include in a lower component must name a header of that
# component itself (a plugin: of its own folder); every other header comes
# from plugin-api as <castellan/...> or from the system.  One upward
# include, and the check fails naming the file, the line and the header.
#
#   cmake -DROOT=<source dir> -P check_includes.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT ROOT)
  message(FATAL_ERROR "check_includes.cmake: pass -DROOT=<source dir>")
endif()

set(violations "")

# Every quoted include of the C files under DIR must exist under DIR.
function(check_component dir)
  file(GLOB_RECURSE sources ${ROOT}/${dir}/*.c ${ROOT}/${dir}/*.h)
  file(GLOB_RECURSE own RELATIVE ${ROOT}/${dir} ${ROOT}/${dir}/*.h)
  set(own_names "")
  foreach(h ${own})
    get_filename_component(name ${h} NAME)
    list(APPEND own_names ${name})
  endforeach()
  foreach(src ${sources})
    file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" header "${line}")
      get_filename_component(name ${header} NAME)
      if(NOT name IN_LIST own_names OR header MATCHES "\\.\\.")
        file(RELATIVE_PATH rel ${ROOT} ${src})
        set(violations "${violations}\n  ${rel}: #include \"${header}\" is not a header of ${dir}/")
      endif()
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

check_component(plugin-api)
check_component(config)
check_component(saves)
file(GLOB plugin_dirs LIST_DIRECTORIES true ${ROOT}/plugins/*)
foreach(p ${plugin_dirs})
  if(IS_DIRECTORY ${p})
    file(RELATIVE_PATH rel ${ROOT} ${p})
    check_component(${rel})
  endif()
endforeach()

# Inside saves/, a client library belongs to its backend's files alone:
# the shared files call a store's methods (saves/saves_int.h).
function(check_backend_includes header prefix)
  file(GLOB sources ${ROOT}/saves/*.c ${ROOT}/saves/*.h)
  foreach(src ${sources})
    get_filename_component(name ${src} NAME)
    if(name MATCHES "^${prefix}")
      continue()
    endif()
    file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*<${header}>")
    if(lines)
      set(violations "${violations}\n  saves/${name}: #include <${header}> belongs to the ${prefix}*.c files only")
    endif()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()
check_backend_includes(sqlite3.h sqlite_)
check_backend_includes(libpq-fe.h pg_)

if(violations)
  message(FATAL_ERROR "upward includes (docs/layout.md says why they are refused):${violations}")
endif()
message(STATUS "include graph: plugins, config and saves include only their own headers and plugin-api; SQLite and libpq only their saves backends")
