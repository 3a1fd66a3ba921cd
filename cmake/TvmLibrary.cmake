# TvmLibrary.cmake: the one helper every library of the suite declares itself with.
#
#   tvm_add_library(<layer>            # ffi, tir, relax, script, codegen, vm
#     NAME <target>                    # tvmffi, tvmtir, ...
#     DEPS <targets of the suite>      # only libraries below this one (DESIGN.md)
#     SYSTEM_LIBS <-l flags / libs>    # dl, pthread, m, ...
#     EXTRA_OBJECTS <object files>)    # merged into the archive
#
# It builds a static library from <dir>/src/*.c, exposes include/ publicly (and include-private/,
# the suite's internal cross-library declarations, to the library itself only), reads
# <dir>/VERSION into a generated `const char* tvm_<layer>_version(void)`, installs the archive,
# the public headers under include/tvm/<layer>/ and a generated <target>.pc.
#
# Internals stay internal: the objects are compiled with -fvisibility=hidden (the public headers
# put their declarations under `#pragma GCC visibility push(default)`), and after the archive is
# built cmake/TvmLocalize.cmake links its objects into one and makes every hidden symbol local,
# except the `tvm_<layer>__*` names other libraries of the suite call. tests/tools/check-symbols.sh
# checks the installed result.

# The allowed dependencies of each layer (must match DESIGN.md and tools/check-layering).
set(TVM_LAYER_DEPS_ffi "")
set(TVM_LAYER_DEPS_tir "ffi")
set(TVM_LAYER_DEPS_relax "ffi;tir")
set(TVM_LAYER_DEPS_script "ffi;tir;relax")
set(TVM_LAYER_DEPS_vm "ffi")
set(TVM_LAYER_DEPS_codegen "ffi;tir;relax;vm")

function(tvm_add_library layer)
  cmake_parse_arguments(ARG "" "NAME" "DEPS;SYSTEM_LIBS;EXTRA_OBJECTS" ${ARGN})
  set(name ${ARG_NAME})
  set(dir "${CMAKE_CURRENT_SOURCE_DIR}")
  file(STRINGS "${dir}/VERSION" version LIMIT_COUNT 1)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${dir}/VERSION")
  string(STRIP "${version}" version)
  if(NOT version MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
    message(FATAL_ERROR "${dir}/VERSION must hold MAJOR.MINOR.PATCH, found '${version}'")
  endif()

  # One-way dependencies: refuse a DEPS entry that is not below this layer.
  foreach(dep IN LISTS ARG_DEPS)
    string(REGEX REPLACE "^tvm" "" dep_layer "${dep}")
    list(FIND TVM_LAYER_DEPS_${layer} "${dep_layer}" idx)
    if(idx EQUAL -1)
      message(FATAL_ERROR "lib${layer} may not depend on ${dep} (see DESIGN.md layering)")
    endif()
  endforeach()

  set(version_c "${CMAKE_CURRENT_BINARY_DIR}/${name}_version.c")
  file(WRITE "${version_c}.in"
       "/* generated from ${dir}/VERSION */\n__attribute__((visibility(\"default\")))\nconst char* tvm_${layer}_version(void) { return \"${version}\"; }\n")
  configure_file("${version_c}.in" "${version_c}" COPYONLY)

  file(GLOB sources CONFIGURE_DEPENDS "${dir}/src/*.c")
  add_library(${name} STATIC ${sources} "${version_c}" ${ARG_EXTRA_OBJECTS})
  target_include_directories(${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>
    PRIVATE "${dir}/src" "${PROJECT_SOURCE_DIR}/include-private")
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} ${ARG_SYSTEM_LIBS})
  set_target_properties(${name} PROPERTIES VERSION ${version} POSITION_INDEPENDENT_CODE ON
                        C_VISIBILITY_PRESET hidden)
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DLIB=$<TARGET_FILE:${name}> -DLAYER=${layer}
            -DLD=${CMAKE_LINKER} -DOBJCOPY=${CMAKE_OBJCOPY} -DREADELF=${CMAKE_READELF}
            -DAR=${CMAKE_AR} -P ${PROJECT_SOURCE_DIR}/cmake/TvmLocalize.cmake
    VERBATIM)
  # (a change to the script rebuilds the archive)
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS
               ${PROJECT_SOURCE_DIR}/cmake/TvmLocalize.cmake)
  set_property(GLOBAL APPEND PROPERTY TVM_LIBRARIES ${name})

  install(TARGETS ${name} EXPORT tvm-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  if(EXISTS "${PROJECT_SOURCE_DIR}/include/tvm/${layer}")
    install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/tvm/${layer}"
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tvm)
  endif()

  # pkg-config: the archive and its system libraries go in Libs (a static archive needs them at
  # the consumer's link); the suite libraries below go in Requires.private and, since static
  # archives cannot pull them in themselves, their -l flags and system libraries are listed
  # after ours.
  set(requires "")
  set(dep_libs "")
  foreach(dep IN LISTS ARG_DEPS)
    list(APPEND requires ${dep})
    string(APPEND dep_libs " -l${dep}")
  endforeach()
  string(REPLACE ";" ", " requires "${requires}")
  set(sys "")
  foreach(lib IN LISTS ARG_SYSTEM_LIBS)
    if(lib MATCHES "^-")
      string(APPEND sys " ${lib}")
    else()
      string(APPEND sys " -l${lib}")
    endif()
  endforeach()
  # The libraries below are linked from their archives here too, so their system libraries
  # (recorded per library, already closed over their own dependencies) follow ours.
  foreach(dep IN LISTS ARG_DEPS)
    get_property(dep_sys GLOBAL PROPERTY TVM_PC_SYS_${dep})
    separate_arguments(dep_sys)
    foreach(flag IN LISTS dep_sys)
      string(FIND "${sys} " " ${flag} " at)
      if(at EQUAL -1)
        string(APPEND sys " ${flag}")
      endif()
    endforeach()
  endforeach()
  set_property(GLOBAL PROPERTY TVM_PC_SYS_${name} "${sys}")
  set(pc "${CMAKE_CURRENT_BINARY_DIR}/${name}.pc")
  file(RELATIVE_PATH pc_to_prefix "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  file(WRITE "${pc}"
"# relocatable: the prefix is found from where this file is installed
prefix=\${pcfiledir}/${pc_to_prefix}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: ${name}
Description: ${name}, the lib${layer} layer of the TVM C suite
Version: ${version}
Requires.private: ${requires}
Cflags: -I\${includedir}
Libs: -L\${libdir} -l${name}${dep_libs}${sys}
")
  install(FILES "${pc}" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
