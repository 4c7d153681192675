# trainer_add_plugin(<name> [SOURCES <files...>] [ENTRY <file>] [LIBRARIES <libs...>]
#                    [OUTPUT_DIRECTORY <dir>] [INSTALL_DESTINATION <dir>])
#
# Builds <name>_obj, an OBJECT library of SOURCES (what unit tests link), and <name>, the
# MODULE that ships: <name>.so made of the same objects plus ENTRY (the file holding
# TRAINER_PLUGIN). Hidden visibility and a version script leave trn_plugin_entry as the only
# exported symbol (ABI rule 2).
#
# ENTRY is compiled into the module only, so it must not be listed in SOURCES too (it would
# define trn_plugin_entry twice). A one-file plugin is `trainer_add_plugin(hello ENTRY hello.cpp)`;
# its <name>_obj is then an INTERFACE library carrying the SDK, with nothing to unit-test.
include_guard(GLOBAL)

set(_TRAINER_PLUGIN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(trainer_add_plugin name)
  cmake_parse_arguments(P "" "ENTRY;OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT P_SOURCES AND NOT P_ENTRY)
    message(FATAL_ERROR "trainer_add_plugin(${name}): SOURCES or ENTRY is required")
  endif()
  if(P_ENTRY)
    get_filename_component(entry_abs ${P_ENTRY} ABSOLUTE)
    foreach(src ${P_SOURCES})
      get_filename_component(src_abs ${src} ABSOLUTE)
      if(src_abs STREQUAL entry_abs)
        message(FATAL_ERROR "trainer_add_plugin(${name}): ${P_ENTRY} is both in SOURCES and the ENTRY; "
          "the ENTRY file (the one with TRAINER_PLUGIN) is compiled into the module only, so list it once, "
          "as ENTRY (a one-file plugin: trainer_add_plugin(${name} ENTRY ${P_ENTRY}))")
      endif()
    endforeach()
  endif()
  set(vscript ${CMAKE_CURRENT_BINARY_DIR}/${name}.map)
  # Written only when its text changes: a rewrite would relink the module at every configure.
  file(CONFIGURE OUTPUT ${vscript} CONTENT "{\n  global: trn_plugin_entry;\n  local: *;\n};\n")

  if(P_SOURCES)
    add_library(${name}_obj OBJECT ${P_SOURCES})
    set_target_properties(${name}_obj PROPERTIES
      CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
      POSITION_INDEPENDENT_CODE ON)
    set(scope PUBLIC)
  else()
    add_library(${name}_obj INTERFACE)
    set(scope INTERFACE)
  endif()
  if(TARGET TrainerSDK::sdk)
    target_link_libraries(${name}_obj ${scope} TrainerSDK::sdk)
  endif()
  if(P_LIBRARIES)
    target_link_libraries(${name}_obj ${scope} ${P_LIBRARIES})
  endif()

  add_library(${name} MODULE ${P_ENTRY})
  target_link_libraries(${name} PRIVATE ${name}_obj)
  set_target_properties(${name} PROPERTIES
    PREFIX "" OUTPUT_NAME ${name}
    CXX_VISIBILITY_PRESET hidden C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${vscript})
  target_link_options(${name} PRIVATE "LINKER:--version-script=${vscript}" "LINKER:--no-undefined")
  if(P_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIRECTORY})
  elseif(DEFINED TRAINER_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TRAINER_PLUGIN_OUTPUT_DIR})
  endif()
  if(P_INSTALL_DESTINATION)
    install(TARGETS ${name} LIBRARY DESTINATION ${P_INSTALL_DESTINATION})
  elseif(DEFINED TRAINER_PLUGIN_INSTALL_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION ${TRAINER_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
