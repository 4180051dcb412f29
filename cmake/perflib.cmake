# Build helpers shared by every directory.
#
# pl_module(NAME SOURCES ... [DEPS ...] [LIBS ...])
#   One library module under lib/: an OBJECT library pl_NAME_obj that goes into
#   libperflib, and a static pl_NAME that tests link so a module can be built
#   and tested on its own.
set_property(GLOBAL PROPERTY PL_MODULE_OBJECTS "")
set_property(GLOBAL PROPERTY PL_MODULE_LIBS "")

function(pl_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  add_library(pl_${name}_obj OBJECT ${M_SOURCES})
  target_include_directories(pl_${name}_obj PUBLIC ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/lib/common ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_BINARY_DIR}/generated)
  foreach(d ${M_DEPS})
    target_include_directories(pl_${name}_obj PRIVATE $<TARGET_PROPERTY:pl_${d}_obj,INTERFACE_INCLUDE_DIRECTORIES>)
  endforeach()
  foreach(l ${M_LIBS})
    target_link_libraries(pl_${name}_obj PUBLIC ${l})
  endforeach()
  add_library(pl_${name} STATIC $<TARGET_OBJECTS:pl_${name}_obj>)
  target_include_directories(pl_${name} PUBLIC ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/lib/common ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_BINARY_DIR}/generated)
  foreach(d ${M_DEPS})
    target_link_libraries(pl_${name} PUBLIC pl_${d})
  endforeach()
  foreach(l ${M_LIBS})
    target_link_libraries(pl_${name} PUBLIC ${l})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY PL_MODULE_OBJECTS $<TARGET_OBJECTS:pl_${name}_obj>)
  set_property(GLOBAL APPEND PROPERTY PL_MODULE_LIBS ${M_LIBS})
endfunction()

# pl_cmocka_test(NAME SOURCES ... [LIBS ...] [ENV ...] [TIMEOUT s])
#   A cmocka test program ending with pl_test_run() (tests/common/pl_test.h).
#   Every cmocka_unit_test*(case) in the sources becomes its own ctest entry
#   NAME.case, run in its own process with that case's name, so the cases are
#   isolated from each other. A case that calls pl_skip() exits 77, which
#   ctest shows as skipped (SKIP_RETURN_CODE), never as passed. One more entry,
#   NAME.registered, checks that those names are exactly the program's cases
#   (none left out of ctest by a line the pattern misses, none commented out).
function(pl_cmocka_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;ENV" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  target_link_libraries(${name} PRIVATE ${T_LIBS} pl_test_main ${CMOCKA_LINK_LIBRARIES})
  target_compile_definitions(${name} PRIVATE PL_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                             PL_BINARY_DIR="${PROJECT_BINARY_DIR}"
                             PL_SHARED_DIR="${PL_SHARED_DIR}")
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set(cases "")
  foreach(src ${T_SOURCES})
    # A case added to a source registers at the next build, not only at
    # the next cmake run (program.registered would fail meanwhile).
    get_filename_component(abs ${src} ABSOLUTE)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${abs})
    file(STRINGS ${src} lines REGEX "cmocka_unit_test[a-z_]*\\(")
    foreach(l ${lines})
      string(REGEX MATCH "cmocka_unit_test[a-z_]*\\(([A-Za-z0-9_]+)" m "${l}")
      if(CMAKE_MATCH_1)
        list(APPEND cases ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES cases)
  add_test(NAME ${name}.registered COMMAND ${name} --registered ${cases})
  foreach(c ${cases})
    add_test(NAME ${name}.${c} COMMAND ${name} ${c} WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(${name}.${c} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${T_ENV}" SKIP_RETURN_CODE 77)
    # Cases that compare against the live machine (process counts, ...) run
    # alone, so other tests forking processes cannot move what they measure.
    # They carry the label "live" (ctest -L live runs them all).
    if("${name}.${c}" MATCHES "live")
      set_tests_properties(${name}.${c} PROPERTIES RUN_SERIAL TRUE LABELS live)
    endif()
  endforeach()
endfunction()

# Add every immediate subdirectory that has a CMakeLists.txt, in name order.
function(pl_add_subdirs)
  file(GLOB entries LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT entries)
  foreach(e ${entries})
    if(IS_DIRECTORY ${e} AND EXISTS ${e}/CMakeLists.txt)
      add_subdirectory(${e})
    endif()
  endforeach()
endfunction()
