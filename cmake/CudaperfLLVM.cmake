# Finds LLVM and Clang 22. Debian ships several versions side by side: an unpinned
# find_package(Clang) can pick a leftover clang-14 config, and find_package(LLVM 22) fails
# because LLVM wants an exact major.minor, so search only the llvm-22 prefix.
set(CUDAPERF_LLVM_MAJOR 22)
set(CUDAPERF_LLVM_PREFIX "/usr/lib/llvm-${CUDAPERF_LLVM_MAJOR}" CACHE PATH
    "Prefix of the LLVM/Clang ${CUDAPERF_LLVM_MAJOR} installation")
# A build directory configured for Debian's LLVM 19 (before the switch) moves to 22: the cached
# prefix, configs and tool paths of the old version are dropped and found again.
if(CUDAPERF_LLVM_PREFIX MATCHES "^/usr/lib/llvm-[0-9]+$"
   AND NOT CUDAPERF_LLVM_PREFIX STREQUAL "/usr/lib/llvm-${CUDAPERF_LLVM_MAJOR}")
  message(STATUS "cudaperf: moving this build from ${CUDAPERF_LLVM_PREFIX} to /usr/lib/llvm-${CUDAPERF_LLVM_MAJOR}")
  set(CUDAPERF_LLVM_PREFIX "/usr/lib/llvm-${CUDAPERF_LLVM_MAJOR}" CACHE PATH
      "Prefix of the LLVM/Clang ${CUDAPERF_LLVM_MAJOR} installation" FORCE)
  foreach(var LLVM_DIR Clang_DIR CUDAPERF_CLANG_RESOURCE_DIR CUDAPERF_LIT CUDAPERF_LLVM_TOOLS_DIR
              CUDAPERF_FUZZ_CLANG)
    unset(${var} CACHE)
  endforeach()
endif()
find_package(LLVM REQUIRED CONFIG PATHS ${CUDAPERF_LLVM_PREFIX}/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL CUDAPERF_LLVM_MAJOR)
  message(FATAL_ERROR "cudaperf needs LLVM ${CUDAPERF_LLVM_MAJOR}, found ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")
endif()
find_package(Clang REQUIRED CONFIG PATHS ${LLVM_LIBRARY_DIR}/cmake/clang NO_DEFAULT_PATH)
message(STATUS "cudaperf: LLVM ${LLVM_PACKAGE_VERSION} at ${LLVM_DIR}")

# Clang's builtin headers (__clang_cuda_*.h) live in its resource directory; a LibTooling binary
# looks for them next to itself, so the directory is recorded here and passed explicitly.
set(CUDAPERF_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}" CACHE PATH
    "Clang resource directory passed to the analyzer")
# lit: Debian's llvm-22-tools ships it as bin/lit (a Python script; 19 had build/utils/lit/lit.py).
set(CUDAPERF_LIT "${CUDAPERF_LLVM_PREFIX}/bin/lit" CACHE FILEPATH "lit (a Python script)")
set(CUDAPERF_LLVM_TOOLS_DIR "${CUDAPERF_LLVM_PREFIX}/bin" CACHE PATH "Where FileCheck and not live")

# Libraries that link LLVM use its flags: no exceptions unless LLVM has them, RTTI as LLVM.
function(cudaperf_llvm_target target)
  target_include_directories(${target} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_include_directories(${target} PUBLIC ${CUDAPERF_INCLUDE_DIR})
  target_compile_definitions(${target} PUBLIC ${LLVM_DEFINITIONS})
  if(NOT LLVM_ENABLE_EH)
    target_compile_options(${target} PRIVATE -fno-exceptions)
  endif()
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()
