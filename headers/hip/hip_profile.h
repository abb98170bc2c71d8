// HIP's profiling markers. hipmlir has no marker API to send them to (ROCm's are empty too unless
// its profiler is built in): each expands to nothing.
#ifndef HIPMLIR_HIP_PROFILE_H
#define HIPMLIR_HIP_PROFILE_H

#define HIP_SCOPED_MARKER(markerName, group)
#define HIP_BEGIN_MARKER(markerName, group)
#define HIP_END_MARKER()

#endif  // HIPMLIR_HIP_PROFILE_H
