# cmake -DOUT=<file> -DFILES=<a.so|b.so|...> -P ShippedManifest.cmake
# Writes the shipped manifest (core/plugin/isolation_options.hpp kShippedManifest): one
# sha256sum(1) line per plugin file built with the operator, sorted by file name. The operator
# runs the plugins of the files it lists in-process by default and every other file in a
# plugin-host child. Written only when its content changes.
string(REPLACE "|" ";" _files "${FILES}")
set(_lines "")
foreach(f ${_files})
  if(EXISTS ${f})
    file(SHA256 ${f} _h)
    get_filename_component(_n ${f} NAME)
    list(APPEND _lines "${_h}  ${_n}")
  endif()
endforeach()
list(SORT _lines)
string(REPLACE ";" "\n" _text "${_lines}")
set(_text "${_text}\n")
if(EXISTS ${OUT})
  file(READ ${OUT} _old)
  if(_old STREQUAL _text)
    return()
  endif()
endif()
file(WRITE ${OUT}.tmp "${_text}")
file(RENAME ${OUT}.tmp ${OUT})
