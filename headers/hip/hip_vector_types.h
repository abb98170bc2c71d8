// HIP's vector types (float4, int2, ...: instances of the class template HIP_vector_type<T, N>)
// with their make_* functions and operators, for host and device code.
#ifndef HIPMLIR_HIP_VECTOR_TYPES_H
#define HIPMLIR_HIP_VECTOR_TYPES_H
#include "hip_common.h"
#include "hipmlir_vector_types.h"
#endif  // HIPMLIR_HIP_VECTOR_TYPES_H
