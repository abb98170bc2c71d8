// String literals whose bytes are not plain ASCII text, shared by host and device code: escapes
// of bytes above 0x7f, embedded NULs, octal escapes, joined pieces, and raw Latin-1 bytes in the
// source itself (this file is not UTF-8, as older sources often are not).
#pragma once

#include <hip/hip_runtime.h>

// The raw bytes are meant: clang warns of them as it reads the file.
#pragma clang diagnostic ignored "-Winvalid-source-encoding"

struct ByteString {
  const char* bytes;
  int size;  // sizeof the literal: its NUL and any NUL inside counted
};

#define BYTE_STRING(text) ByteString{text, static_cast<int>(sizeof(text))}

__host__ __device__ inline ByteString byte_string(int which) {
  switch (which) {
    case 0: return BYTE_STRING("\xff\xfe\x80");
    case 1: return BYTE_STRING("a\0b\012z\0");
    case 2: return BYTE_STRING("\x41" "B" "\1\02\003" "4");
    case 3: return BYTE_STRING("caf\xe9 na\xefve \\ \"quoted\" \a\b\f\v\t\r\n?");
    case 4: return BYTE_STRING("raw Latin-1: été, ÿþ,  ");
    case 5: return BYTE_STRING("UTF-8 as written: Ã©tÃ© â‚¬");
    default: return BYTE_STRING("");
  }
}
constexpr int kByteStrings = 7;
