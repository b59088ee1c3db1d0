# host_rooms.cmake — the order of host's rooms (host/README.md,
# docs/layout.md), shared by check_includes.cmake and check_calls.cmake.
# Top floor first: a room may include and call its own files and the rooms
# after it in this list, never one before it.  Where a room below must
# reach up, the room above fills a method table the room below declares.
set(CAS_HOST_ROOMS cli clients server tools agents session worker loader util)
set(CAS_HOST_RULE "the rule: cli -> clients -> server -> tools -> agents -> session -> worker -> loader -> util, only downward")
set(CAS_HOST_HOW "A room below that must reach up declares a method table and the room above fills it (host/README.md).")

# The floor of ROOM into OUT: util is 0, each room above one more; -1 for
# a folder that is not a room.
function(cas_host_floor room out)
  list(FIND CAS_HOST_ROOMS ${room} index)
  list(LENGTH CAS_HOST_ROOMS count)
  if(index LESS 0)
    set(${out} -1 PARENT_SCOPE)
  else()
    math(EXPR floor "${count} - 1 - ${index}")
    set(${out} ${floor} PARENT_SCOPE)
  endif()
endfunction()
