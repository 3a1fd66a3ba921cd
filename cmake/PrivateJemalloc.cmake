# PrivateJemalloc.cmake: a private copy of jemalloc for libtvmffi's allocator interface.
#
# Debian's libjemalloc exports malloc/free themselves, so linking it would replace the malloc of
# every program that embeds our libraries. Instead we take the objects of libjemalloc_pic.a,
# drop the C++ operator new/delete object, and rename every symbol they define to tvm_je_<name>
# (objcopy --redefine-syms). The result is merged into libtvmffi.a: our allocator calls
# tvm_je_mallocx/tvm_je_sdallocx, and the embedding application keeps its own malloc.
#
# Sets TVM_JEMALLOC_OBJECTS (a list of object files) and TVM_JEMALLOC_FOUND.

set(TVM_JEMALLOC_FOUND OFF)
set(TVM_JEMALLOC_OBJECTS "")
find_file(TVM_JEMALLOC_PIC_ARCHIVE NAMES libjemalloc_pic.a
          PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib /usr/local/lib)
find_program(TVM_OBJCOPY NAMES objcopy)
find_program(TVM_NM NAMES nm)
if(NOT TVM_JEMALLOC_PIC_ARCHIVE OR NOT TVM_OBJCOPY OR NOT TVM_NM)
  message(STATUS "jemalloc: libjemalloc_pic.a/objcopy/nm not found, using libc malloc")
  return()
endif()

set(_dir "${CMAKE_BINARY_DIR}/private_jemalloc")
file(MAKE_DIRECTORY "${_dir}")
set(_stamp "${_dir}/done.stamp")
if(NOT EXISTS "${_stamp}" OR "${TVM_JEMALLOC_PIC_ARCHIVE}" IS_NEWER_THAN "${_stamp}")
  file(GLOB _old "${_dir}/*.o")
  if(_old)
    file(REMOVE ${_old})
  endif()
  execute_process(COMMAND ar x "${TVM_JEMALLOC_PIC_ARCHIVE}" WORKING_DIRECTORY "${_dir}"
                  RESULT_VARIABLE _rc)
  file(REMOVE "${_dir}/jemalloc_cpp.pic.o")
  file(GLOB _objs "${_dir}/*.o")
  execute_process(COMMAND ${TVM_NM} -g --defined-only ${_objs}
                  OUTPUT_VARIABLE _nm RESULT_VARIABLE _rc2)
  if(NOT _rc EQUAL 0 OR NOT _rc2 EQUAL 0)
    message(STATUS "jemalloc: could not unpack ${TVM_JEMALLOC_PIC_ARCHIVE}, using libc malloc")
    return()
  endif()
  string(REPLACE "\n" ";" _lines "${_nm}")
  set(_map "")
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^[0-9a-fA-F]+ [A-Za-z] ([A-Za-z_.$][A-Za-z0-9_.$]*)$")
      string(APPEND _map "${CMAKE_MATCH_1} tvm_je_${CMAKE_MATCH_1}\n")
    endif()
  endforeach()
  file(WRITE "${_dir}/syms.map" "${_map}")
  foreach(_o IN LISTS _objs)
    execute_process(COMMAND ${TVM_OBJCOPY} --redefine-syms=${_dir}/syms.map "${_o}"
                    RESULT_VARIABLE _rc3)
    if(NOT _rc3 EQUAL 0)
      message(STATUS "jemalloc: objcopy failed on ${_o}, using libc malloc")
      return()
    endif()
  endforeach()
  file(TOUCH "${_stamp}")
endif()
file(GLOB TVM_JEMALLOC_OBJECTS "${_dir}/*.o")
set(TVM_JEMALLOC_FOUND ON)
message(STATUS "jemalloc: private copy from ${TVM_JEMALLOC_PIC_ARCHIVE}")
