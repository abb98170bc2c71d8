// Error checks of the Jacobi programs: a failed HIP or MPI call names itself and its error and
// ends the whole job (MPI_Abort: the other ranks would wait for ever on a rank that exited).
#pragma once

#include <cstdio>
#include <cstdlib>

#include <hip/hip_runtime.h>

// Ends the job: every rank of it when MPI is running, else this process.
[[noreturn]] void abort_job(int code);

#define HIP_CHECK(call)                                                                  \
  do {                                                                                   \
    hipError_t err_ = (call);                                                            \
    if (err_ != hipSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,     \
                   hipGetErrorName(err_), hipGetErrorString(err_));                      \
      abort_job(1);                                                                      \
    }                                                                                    \
  } while (0)

// MPI's default error handler aborts the job; programs that set MPI_ERRORS_RETURN check this way.
#define MPI_CHECK(call)                                                                  \
  do {                                                                                   \
    int err_ = (call);                                                                   \
    if (err_ != MPI_SUCCESS) {                                                           \
      char text_[MPI_MAX_ERROR_STRING];                                                  \
      int length_ = 0;                                                                   \
      MPI_Error_string(err_, text_, &length_);                                           \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, text_);  \
      abort_job(1);                                                                      \
    }                                                                                    \
  } while (0)
