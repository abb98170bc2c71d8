// The HCC-era name of HIP's extensions header (deprecated by HIP): hip_ext.h.
#ifndef HIPMLIR_HIP_HCC_H
#define HIPMLIR_HIP_HCC_H
#include "hip_ext.h"
#endif  // HIPMLIR_HIP_HCC_H
