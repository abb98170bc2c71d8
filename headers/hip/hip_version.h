// The HIP API level hipmlir's headers and runtime implement, as ROCm's hip/hip_version.h spells
// it (HIP_VERSION = major * 10000000 + minor * 100000 + patch). The runtime's
// hipRuntimeGetVersion, `hipmlir --version` and `hipconfig --version` read these numbers.
#ifndef HIPMLIR_HIP_VERSION_H
#define HIPMLIR_HIP_VERSION_H

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH ""
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "hipmlir"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#endif
