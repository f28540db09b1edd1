find_package(PkgConfig)

PKG_CHECK_MODULES(PC_GR_GPUMIMO gnuradio-gpumimo)

FIND_PATH(
    GR_GPUMIMO_INCLUDE_DIRS
    NAMES gnuradio/gpumimo/api.h
    HINTS $ENV{GPUMIMO_DIR}/include
        ${PC_GPUMIMO_INCLUDEDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/include
          /usr/local/include
          /usr/include
)

FIND_LIBRARY(
    GR_GPUMIMO_LIBRARIES
    NAMES gnuradio-gpumimo
    HINTS $ENV{GPUMIMO_DIR}/lib
        ${PC_GPUMIMO_LIBDIR}
    PATHS ${CMAKE_INSTALL_PREFIX}/lib
          ${CMAKE_INSTALL_PREFIX}/lib64
          /usr/local/lib
          /usr/local/lib64
          /usr/lib
          /usr/lib64
          )

include("${CMAKE_CURRENT_LIST_DIR}/gnuradio-gpumimoTarget.cmake")

INCLUDE(FindPackageHandleStandardArgs)
FIND_PACKAGE_HANDLE_STANDARD_ARGS(GR_GPUMIMO DEFAULT_MSG GR_GPUMIMO_LIBRARIES GR_GPUMIMO_INCLUDE_DIRS)
MARK_AS_ADVANCED(GR_GPUMIMO_LIBRARIES GR_GPUMIMO_INCLUDE_DIRS)
