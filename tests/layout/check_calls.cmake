# check_calls.cmake — the calls between host's rooms follow the order the
# includes do (host_rooms.cmake): a room calls functions and reads data of
# its own room and of rooms below it only.  Read from the objects the
# build made: every cas_ symbol an object needs (nm: undefined) and the
# room whose object defines it.  A call upward fails the check, naming the
# file, the line that names the symbol, the symbol, where it is defined
# and the rule.  Calls through a method table (a pointer the room above
# filled) are not symbols and pass, as they should.
#
#   cmake -DROOT=<source dir> -DNM=<nm> -DOBJECTS=<file listing objects>
#         -P check_calls.cmake
cmake_minimum_required(VERSION 3.20)
foreach(var ROOT NM OBJECTS)
  if(NOT ${var})
    message(FATAL_ERROR "check_calls.cmake: pass -D${var}=...")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/host_rooms.cmake)

# The source file of a host object, into OUT (host/ROOM/NAME.c), and its
# room into ROOM_OUT; "" for an object that is not host's.
function(cas_source_of object out room_out)
  set(src "")
  set(room "")
  if(object MATCHES "/castellan-(loader|util)\\.dir/(.*/)?([^/]+)\\.c\\.o(bj)?$")
    set(room ${CMAKE_MATCH_1})
    set(src host/${room}/${CMAKE_MATCH_3}.c)
  elseif(object MATCHES "/castellan(-host)?\\.dir/([a-z]+)/([^/]+)\\.c\\.o(bj)?$")
    set(room ${CMAKE_MATCH_2})
    set(src host/${room}/${CMAKE_MATCH_3}.c)
  endif()
  set(${out} ${src} PARENT_SCOPE)
  set(${room_out} ${room} PARENT_SCOPE)
endfunction()

file(STRINGS ${OBJECTS} objects)
set(uses "")
foreach(object ${objects})
  cas_source_of(${object} src room)
  if(NOT src)
    continue()
  endif()
  execute_process(COMMAND ${NM} -P ${object} OUTPUT_VARIABLE table RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_calls.cmake: ${NM} cannot read ${object}")
  endif()
  string(REGEX MATCHALL "(^|\n)cas_[A-Za-z0-9_]* [A-Z]" symbols "${table}")
  foreach(entry ${symbols})
    string(STRIP "${entry}" entry)
    string(REPLACE " " ";" entry "${entry}")
    list(GET entry 0 symbol)
    list(GET entry 1 type)
    if(type STREQUAL "U")
      list(APPEND uses "${src}|${room}|${symbol}")
    else()
      set(room_of_${symbol} ${room})
      set(file_of_${symbol} ${src})
    endif()
  endforeach()
endforeach()

set(violations "")
foreach(use ${uses})
  string(REPLACE "|" ";" use "${use}")
  list(GET use 0 src)
  list(GET use 1 room)
  list(GET use 2 symbol)
  if(NOT DEFINED room_of_${symbol})
    continue() # config, saves, plugin-api: below every room
  endif()
  cas_host_floor(${room} from)
  cas_host_floor(${room_of_${symbol}} to)
  if(to GREATER from)
    set(content "")
    if(EXISTS ${ROOT}/${src})
      file(READ ${ROOT}/${src} content)
    endif()
    string(FIND "${content}" "${symbol}" at)
    set(n "?")
    if(at GREATER -1)
      string(SUBSTRING "${content}" 0 ${at} before)
      string(REGEX MATCHALL "\n" newlines "${before}")
      list(LENGTH newlines n)
      math(EXPR n "${n} + 1")
    endif()
    set(violations "${violations}\n  ${src}:${n}: uses ${symbol} (${file_of_${symbol}}): runs up from ${room}/ to ${room_of_${symbol}}/; ${CAS_HOST_RULE}")
  endif()
endforeach()

if(violations)
  message(FATAL_ERROR "upward calls between host's rooms (docs/layout.md):${violations}\n${CAS_HOST_HOW}")
endif()
list(LENGTH objects n_objects)
message(STATUS "host's rooms: ${n_objects} objects, every call goes down or stays in its room")
