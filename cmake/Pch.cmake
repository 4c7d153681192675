# Precompiled headers (TRAINER_PCH, default OFF: see the option below). Nearly every file of the operator and its tests
# includes Boost.JSON and the same standard headers (test files also Boost.Test), and parsing them
# is about half the compile time of a typical file (-fsyntax-only of core/api/admission.cpp: 2.7 s
# of its 5.4 s). But GCC takes ~8 s to write a precompiled header (100 MB) and a file still takes
# ~0.5 s to load it, so it pays only for a target with enough files: measured per target on a
# cold build (2 cores), a core library gained from about 8 files up and lost below (one of 3
# files: -9 s), a Boost.Test program (whose header is the heavier) from 2 files up. Those are
# the thresholds below; the whole build gained ~330 s of CPU. The file that defines
# BOOST_TEST_MODULE (it must come before Boost.Test's header) is compiled without, and not counted.
#
# Since test programs are compiled at -O0 (trainer_add_test in test/CMakeLists.txt) they no longer
# gain: their files took 687 s of CPU without precompiled headers and 729 s with them (cold build,
# 2 cores), the headers' ~8 s per target outweighing what -O0 files save by not parsing them.
#
# Left out: plugins/ and sdk/, which plugin authors copy and build without any of this, and
# targets holding C files. A header these targets forget to include is hidden by the precompiled
# one, so a build with -DTRAINER_PCH=OFF is the check that every file includes what it uses (and
# a name that clashes with one in those headers shows at once: core/golden/field_path.cpp's
# `quoted` met std::quoted through <filesystem>).
#
# Per target, not one header shared by all: CMake 3.25's REUSE_FROM cannot share one across
# directories ("Unable to resolve full path of PCH-header"), and a target's flags (-fPIC,
# definitions, sanitizers) must match its precompiled header's anyway.
include_guard(GLOBAL)

# Off by default: with precompiled headers GCC 12 reports -Warray-bounds false positives in
# inlined std::string concatenation (core/controller/events.cpp, several test files; GCC bug
# https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105651) that the plain build does not, and the
# build must stay -Wall -Wextra clean. Turn it on to build faster where the warnings don't matter.
option(TRAINER_PCH "Precompile the common headers of the targets with enough C++ files (cmake/Pch.cmake)" OFF)

set(TRAINER_PCH_HEADERS
  <boost/json.hpp>
  <algorithm> <chrono> <cstdint> <cstring> <filesystem> <functional> <map> <memory> <mutex>
  <optional> <set> <sstream> <string> <string_view> <utility> <vector>)

# The fewest files using the precompiled header for it to pay (measured: see above).
set(TRAINER_PCH_MIN_FILES 8)
set(TRAINER_PCH_MIN_TEST_FILES 2)

# Applies the precompiled headers to every target defined in `dir` and the directories under it.
function(trainer_apply_pch dir)
  if(NOT TRAINER_PCH)
    return()
  endif()
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t ${targets})
    _trainer_pch_target(${t})
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d ${subdirs})
    trainer_apply_pch(${d})
  endforeach()
endfunction()

function(_trainer_pch_target t)
  get_target_property(type ${t} TYPE)
  if(NOT type MATCHES "^(EXECUTABLE|OBJECT_LIBRARY|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY)$")
    return()
  endif()
  get_target_property(srcdir ${t} SOURCE_DIR)
  if(srcdir MATCHES "^${PROJECT_SOURCE_DIR}/(plugins|sdk)(/|$)")
    return()
  endif()
  get_target_property(sources ${t} SOURCES)
  set(cxx "")
  foreach(s ${sources})
    if(s MATCHES "\\.c$")
      return()
    elseif(s MATCHES "\\.cpp$")
      if(NOT IS_ABSOLUTE ${s})
        set(s ${srcdir}/${s})
      endif()
      list(APPEND cxx ${s})
    endif()
  endforeach()
  set(headers ${TRAINER_PCH_HEADERS})
  set(minimum ${TRAINER_PCH_MIN_FILES})
  set(without "")
  get_target_property(libs ${t} LINK_LIBRARIES)
  if("Boost::unit_test_framework" IN_LIST libs)
    list(APPEND headers <boost/test/unit_test.hpp>)
    set(minimum ${TRAINER_PCH_MIN_TEST_FILES})
    foreach(s ${cxx})
      file(STRINGS ${s} module REGEX "^#define BOOST_TEST_MODULE" LIMIT_COUNT 1)
      if(module)
        list(APPEND without ${s})
      endif()
    endforeach()
  endif()
  list(LENGTH cxx count)
  list(LENGTH without skipped)
  math(EXPR count "${count} - ${skipped}")
  if(count LESS minimum)
    return()
  endif()
  if(without)
    set_source_files_properties(${without} TARGET_DIRECTORY ${t} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
  target_precompile_headers(${t} PRIVATE ${headers})
endfunction()
