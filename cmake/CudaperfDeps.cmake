# Third-party libraries of the non-LLVM side, from Debian's packages (scripts/install-deps.sh):
#   cudaperf::json      nlohmann-json3-dev   (header only)
#   cudaperf::fmt       libfmt-dev           (header-only mode, so binaries carried to the GPU host need no libfmt)
#   cudaperf::pcre2     libpcre2-dev         (tokenizer pre-tokenizer regex)
#   cudaperf::utf8proc  libutf8proc-dev      (NFC normalization)
#   cudaperf::httplib   libcpp-httplib-dev   (the reward service; Debian splits it: header + libcpp-httplib.so)
# The GPU host (Ubuntu, no package registry) gets the same headers and shared objects from
# scripts/pack-deps.sh: carry .carry/deps and configure with -DCUDAPERF_DEPS_PREFIX=$PWD/.carry/deps.
# Default: .carry/deps of this checkout when it is there (the GPU host's scripts configure without the
# option; lib/Support needs nlohmann-json everywhere).
set(_cudaperf_carried_deps "")
if(EXISTS "${CMAKE_SOURCE_DIR}/.carry/deps/include")
  set(_cudaperf_carried_deps "${CMAKE_SOURCE_DIR}/.carry/deps")
endif()
set(CUDAPERF_DEPS_PREFIX "${_cudaperf_carried_deps}" CACHE PATH "Extra prefix with include/ and lib/ of carried dependencies")
set(_cudaperf_dep_hints)
if(CUDAPERF_DEPS_PREFIX)
  set(_cudaperf_dep_hints HINTS ${CUDAPERF_DEPS_PREFIX}/include ${CUDAPERF_DEPS_PREFIX}/lib)
endif()

function(_cudaperf_header_dep target header)
  string(MAKE_C_IDENTIFIER "CUDAPERF_${header}_DIR" var)
  find_path(${var} ${header} ${_cudaperf_dep_hints})
  if(${var} AND NOT TARGET ${target})
    add_library(${target} INTERFACE IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${${var}}")
  endif()
endfunction()

function(_cudaperf_library_dep target header lib)
  string(MAKE_C_IDENTIFIER "CUDAPERF_${header}_DIR" hvar)
  string(MAKE_C_IDENTIFIER "CUDAPERF_${lib}_LIBRARY" lvar)
  find_path(${hvar} ${header} ${_cudaperf_dep_hints})
  find_library(${lvar} NAMES ${lib} ${ARGN} ${_cudaperf_dep_hints})
  if(${hvar} AND ${lvar} AND NOT TARGET ${target})
    add_library(${target} UNKNOWN IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${${lvar}}"
                                               INTERFACE_INCLUDE_DIRECTORIES "${${hvar}}")
  endif()
endfunction()

_cudaperf_header_dep(cudaperf::json nlohmann/json.hpp)
_cudaperf_header_dep(_cudaperf_fmt_headers fmt/format-inl.h)
if(TARGET _cudaperf_fmt_headers AND NOT TARGET cudaperf::fmt)
  add_library(cudaperf::fmt INTERFACE IMPORTED GLOBAL)
  set_target_properties(cudaperf::fmt PROPERTIES INTERFACE_LINK_LIBRARIES _cudaperf_fmt_headers
                                                 INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()
_cudaperf_library_dep(cudaperf::pcre2 pcre2.h pcre2-8 libpcre2-8.so.0)
if(TARGET cudaperf::pcre2)
  set_property(TARGET cudaperf::pcre2 APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS PCRE2_CODE_UNIT_WIDTH=8)
endif()
_cudaperf_library_dep(cudaperf::utf8proc utf8proc.h utf8proc libutf8proc.so.2)
# Debian's libcpp-httplib is built with OpenSSL, zlib and Brotli support, and its classes' layout
# depends on it: users compile with the same macros (its cpp-httplib.pc), so the three libraries'
# headers must be there too (the -dev package depends on them; a carried copy may lack them).
find_path(CUDAPERF_openssl_ssl_h_DIR openssl/ssl.h ${_cudaperf_dep_hints})
find_path(CUDAPERF_brotli_decode_h_DIR brotli/decode.h ${_cudaperf_dep_hints})
find_path(CUDAPERF_zlib_h_DIR zlib.h ${_cudaperf_dep_hints})
if(CUDAPERF_openssl_ssl_h_DIR AND CUDAPERF_brotli_decode_h_DIR AND CUDAPERF_zlib_h_DIR)
  _cudaperf_library_dep(cudaperf::httplib httplib.h cpp-httplib libcpp-httplib.so.0.11)
  if(TARGET cudaperf::httplib)
    set_property(TARGET cudaperf::httplib APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS
                 CPPHTTPLIB_OPENSSL_SUPPORT CPPHTTPLIB_ZLIB_SUPPORT CPPHTTPLIB_BROTLI_SUPPORT)
    set_property(TARGET cudaperf::httplib APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                 ${CUDAPERF_openssl_ssl_h_DIR} ${CUDAPERF_brotli_decode_h_DIR} ${CUDAPERF_zlib_h_DIR})
  endif()
endif()

foreach(dep json fmt pcre2 utf8proc httplib)
  if(TARGET cudaperf::${dep})
    message(STATUS "cudaperf: ${dep} found")
  else()
    message(STATUS "cudaperf: ${dep} NOT found (scripts/install-deps.sh, or -DCUDAPERF_DEPS_PREFIX)")
  endif()
endforeach()
