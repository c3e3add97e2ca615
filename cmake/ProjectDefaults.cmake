# Settings every project target gets: warnings as errors, sanitizers when asked.
# Third-party headers come in as SYSTEM so their warnings are not ours.
if(GPUPOOL_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

function(gpupool_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror
    -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual
    -Wnull-dereference -Wimplicit-fallthrough)
  # GCC 12's libstdc++ reports -Wrestrict falsely at -O2/-O3 on any
  # `"literal" + std::string` (GCC bug 105329, fixed in 13).
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
    # At -O2 GCC 12 also reports -Wmaybe-uninitialized and -Wnull-dereference
    # falsely through inlined libstdc++ (std::optional<time_point>, vector
    # elements, CLI11's std::string splitting), which broke the optimised
    # build of README command 1. Off in optimised GCC 12 builds only: the
    # sanitizer build keeps them, and clang's optimised fuzz build keeps
    # -Wnull-dereference.
    if(NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized -Wno-null-dereference)
    endif()
  endif()
  # RapidJSON 1.1's member iterators predate C++20's rewritten comparisons;
  # clang reports every range-for over an object's members as ambiguous.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE -Wno-ambiguous-reversed-operator)
  endif()
  target_include_directories(${target} SYSTEM PRIVATE ${RAPIDJSON_INCLUDE_DIR})
  # RapidJSON's type checks throw instead of aborting (see the header).
  target_compile_options(${target} PRIVATE -include ${PROJECT_SOURCE_DIR}/include/gpupool/common/rapidjson_config.h)
endfunction()
