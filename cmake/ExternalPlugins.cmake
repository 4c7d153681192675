# Plugins built exactly as a third party builds them. Every plugins/<name>/ holding a file
# named `.external` is a standalone CMake project that needs only an installed TrainerSDK:
#   1. the SDK (install component `sdk`) is stage-installed into ${CMAKE_BINARY_DIR}/sdk-prefix
#      at build time, from this build tree;
#   2. ExternalProject_Add(<name>) configures the folder against ONLY that prefix, builds it and
#      writes <name>.so into ${TRAINER_PLUGIN_OUTPUT_DIR}; its own tests run as one CTest test
#      `plugins_<name>_external`;
#   3. `cmake --install` copies <name>.so into ${TRAINER_PLUGIN_INSTALL_DIR}.
include_guard(GLOBAL)
include(ExternalProject)

file(GLOB _trainer_external_markers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/plugins/*/.external)
list(SORT _trainer_external_markers)
if(NOT _trainer_external_markers)
  return()
endif()

# 1. Stage the SDK (headers, package files, the testing library TrainerSDK::testing). Re-run when
# a header, a package file or the testing library changes; start from an empty prefix so a
# removed header does not linger.
set(TRAINER_SDK_PREFIX ${CMAKE_BINARY_DIR}/sdk-prefix)
file(GLOB_RECURSE _trainer_sdk_inputs CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/sdk/include/*
  ${PROJECT_SOURCE_DIR}/sdk/cmake/*)
set(_trainer_sdk_stamp ${CMAKE_BINARY_DIR}/sdk-prefix.stamp)
add_custom_command(OUTPUT ${_trainer_sdk_stamp}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${TRAINER_SDK_PREFIX}
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --component sdk --prefix ${TRAINER_SDK_PREFIX}
  COMMAND ${CMAKE_COMMAND} -E touch ${_trainer_sdk_stamp}
  DEPENDS ${_trainer_sdk_inputs} trainer_sdk_testing
  COMMENT "Staging the TrainerSDK into ${TRAINER_SDK_PREFIX}"
  VERBATIM)
add_custom_target(trainer_sdk_stage DEPENDS ${_trainer_sdk_stamp})

# What the operator's own targets are compiled with, forwarded as plain flags.
set(_trainer_ext_cxx_flags "${CMAKE_CXX_FLAGS}")
set(_trainer_ext_link_flags "")
if(TRAINER_SANITIZE)
  string(APPEND _trainer_ext_cxx_flags " -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined")
  set(_trainer_ext_link_flags "-fsanitize=address,undefined")
endif()
set(_trainer_ext_testing OFF)
if(TRAINER_BUILD_TESTS)
  set(_trainer_ext_testing ON)
endif()

foreach(_marker ${_trainer_external_markers})
  get_filename_component(_dir ${_marker} DIRECTORY)
  get_filename_component(_name ${_dir} NAME)
  set(_bin ${CMAKE_BINARY_DIR}/plugins-external/${_name})

  # 2. Configure against the staged prefix only (no package registry, no source tree).
  ExternalProject_Add(${_name}
    SOURCE_DIR ${_dir}
    BINARY_DIR ${_bin}
    PREFIX ${CMAKE_BINARY_DIR}/plugins-external/${_name}-ep
    CMAKE_CACHE_ARGS
      -DCMAKE_BUILD_TYPE:STRING=${CMAKE_BUILD_TYPE}
      -DCMAKE_CXX_COMPILER:FILEPATH=${CMAKE_CXX_COMPILER}
      -DCMAKE_CXX_FLAGS:STRING=${_trainer_ext_cxx_flags}
      -DCMAKE_MODULE_LINKER_FLAGS:STRING=${_trainer_ext_link_flags}
      -DCMAKE_SHARED_LINKER_FLAGS:STRING=${_trainer_ext_link_flags}
      -DCMAKE_EXE_LINKER_FLAGS:STRING=${_trainer_ext_link_flags}
      -DCMAKE_PREFIX_PATH:PATH=${TRAINER_SDK_PREFIX}
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY:BOOL=OFF
      -DBoost_DIR:PATH=${Boost_DIR}
      -DTRAINER_PLUGIN_OUTPUT_DIR:PATH=${TRAINER_PLUGIN_OUTPUT_DIR}
      -DBUILD_TESTING:BOOL=${_trainer_ext_testing}
    BUILD_ALWAYS ON
    INSTALL_COMMAND ""
    DEPENDS trainer_sdk_stage
    BUILD_BYPRODUCTS ${TRAINER_PLUGIN_OUTPUT_DIR}/${_name}.so)

  if(TRAINER_BUILD_TESTS)
    add_test(NAME plugins_${_name}_external
      COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${_bin} --output-on-failure)
  endif()

  # 3. Ship it beside the in-tree plugins.
  install(FILES ${TRAINER_PLUGIN_OUTPUT_DIR}/${_name}.so DESTINATION ${TRAINER_PLUGIN_INSTALL_DIR})
endforeach()
