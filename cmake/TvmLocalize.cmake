# TvmLocalize.cmake: run after a library's archive is built (cmake -P, from tvm_add_library).
#
#   cmake -DLIB=<archive> -DLAYER=<ffi|tir|...> -DLD=ld -DOBJCOPY=objcopy -DREADELF=readelf
#         -DAR=ar -P TvmLocalize.cmake
#
# The library's objects are compiled with -fvisibility=hidden, so only the public API (the
# declarations of include/tvm/, under `#pragma GCC visibility push(default)`) has default
# visibility. Visibility alone does not keep a static archive's internals to itself: a hidden
# global symbol still takes part in the static link of the program that uses the archive, so a
# program defining its own `tvm_je_malloc` (or any name a library shares between its files)
# would clash with ours. This script links the archive's objects into one relocatable object
# (ld -r), which resolves the references between them, and then makes every hidden symbol local
# to it (objcopy), except the internal names `tvm_<layer>__*`, kept global (hidden) for the
# other libraries of the suite and the tests to call (the prefix is the suite's namespace). The
# private jemalloc's `tvm_je_*` symbols are all made local: only libtvmffi's allocator calls
# them. The archive is then rewritten with that one object.
foreach(var LIB LAYER LD OBJCOPY READELF AR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "TvmLocalize.cmake: -D${var}=... is required")
  endif()
endforeach()

get_filename_component(_dir "${LIB}" DIRECTORY)
get_filename_component(_stem "${LIB}" NAME_WE)
set(_obj "${_dir}/${_stem}.merged.o")
set(_list "${_dir}/${_stem}.localize")

execute_process(COMMAND "${LD}" -r -o "${_obj}" --whole-archive "${LIB}"
                RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "ld -r ${LIB} failed: ${_err}")
endif()
execute_process(COMMAND "${READELF}" -sW "${_obj}" OUTPUT_VARIABLE _syms RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "readelf -s ${_obj} failed")
endif()

# readelf -sW rows: Num: Value Size Type Bind Vis Ndx Name
string(REPLACE "\n" ";" _rows "${_syms}")
set(_local "")
foreach(_row IN LISTS _rows)
  if(NOT _row MATCHES "^ *[0-9]+: [0-9a-f]+ +(0x[0-9a-f]+|[0-9]+) [A-Z_]+ +(GLOBAL|WEAK) +([A-Z]+) +([A-Z0-9]+) +([^ ]+)$")
    continue()
  endif()
  set(_vis "${CMAKE_MATCH_3}")
  set(_ndx "${CMAKE_MATCH_4}")
  set(_name "${CMAKE_MATCH_5}")
  if(_ndx STREQUAL "UND")
    continue()
  endif()
  if(_name MATCHES "^tvm_je_")
    string(APPEND _local "${_name}\n")
  elseif((_vis STREQUAL "HIDDEN" OR _vis STREQUAL "INTERNAL") AND NOT _name MATCHES "^tvm_${LAYER}__")
    string(APPEND _local "${_name}\n")
  endif()
endforeach()
file(WRITE "${_list}" "${_local}")

if(NOT _local STREQUAL "") # objcopy fails on an empty list
  execute_process(COMMAND "${OBJCOPY}" "--localize-symbols=${_list}" "${_obj}"
                  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "objcopy --localize-symbols on ${_obj} failed: ${_err}")
  endif()
endif()
file(REMOVE "${LIB}")
execute_process(COMMAND "${AR}" rcs "${LIB}" "${_obj}" RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "ar rcs ${LIB} failed: ${_err}")
endif()
file(REMOVE "${_obj}")
