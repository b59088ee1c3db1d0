# check_includes.cmake — the include graph is a tree:
#   plugins -> plugin-api;  config -> plugin-api (and inih);
#   saves -> plugin-api (and SQLite);  host -> config, saves, plugin-api.
# A quoted #include in a lower component must name a header of that
# component itself (a plugin: of its own folder); every other header comes
# from plugin-api as <castellan/...> or from the system.  Inside host/ the
# rooms are floors (host/README.md):
#   cli -> clients -> server -> tools -> agents -> session -> worker -> loader -> util
# and a file includes headers of its own room or of rooms below it only.
# One upward include, and the check fails naming the file, the line, the
# header and the rule.  (check_calls.cmake holds the calls to the same
# order.)
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

# The line number of the first line of FILE that is TEXT, into OUT.
function(cas_line_of file text out)
  file(READ ${file} content)
  string(FIND "${content}" "${text}" at)
  string(SUBSTRING "${content}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

# host's rooms, top floor first; the order is kept in one place, which
# check_calls.cmake reads too.
include(${CMAKE_CURRENT_LIST_DIR}/host_rooms.cmake)

# The room whose folder holds each header of host/, by file name.
foreach(room ${CAS_HOST_ROOMS})
  file(GLOB_RECURSE headers RELATIVE ${ROOT}/host/${room} ${ROOT}/host/${room}/*.h)
  foreach(h ${headers})
    get_filename_component(name ${h} NAME)
    if(DEFINED room_of_${name})
      set(violations "${violations}\n  host/${room}/${h}: a header of this name is in host/${room_of_${name}}/ too; a quoted include could not say which")
    endif()
    set(room_of_${name} ${room})
  endforeach()
endforeach()

# Every quoted include of a host room names a header of its own room or of
# one below, or one from outside host/ (config, saves: the include paths).
foreach(room ${CAS_HOST_ROOMS})
  cas_host_floor(${room} floor)
  file(GLOB_RECURSE sources ${ROOT}/host/${room}/*.c ${ROOT}/host/${room}/*.h)
  list(FILTER sources EXCLUDE REGEX "/templates/")
  foreach(src ${sources})
    file(RELATIVE_PATH rel ${ROOT} ${src})
    file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" header "${line}")
      get_filename_component(name ${header} NAME)
      set(why "")
      if(header MATCHES "\\.\\.")
        set(why "reaches out by a relative path; name the header alone")
      elseif(DEFINED room_of_${name})
        cas_host_floor(${room_of_${name}} to)
        if(to GREATER floor)
          set(why "runs up from ${room}/ to ${room_of_${name}}/; ${CAS_HOST_RULE}")
        endif()
      endif()
      if(why)
        cas_line_of(${src} "${line}" n)
        set(violations "${violations}\n  ${rel}:${n}: #include \"${header}\" ${why}")
      endif()
    endforeach()
  endforeach()
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
  message(FATAL_ERROR "upward includes (docs/layout.md says why they are refused):${violations}\n${CAS_HOST_HOW}")
endif()
message(STATUS "include graph: plugins, config and saves include only their own headers and plugin-api; SQLite and libpq only their saves backends; host's rooms include only downward")
