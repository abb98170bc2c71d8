// Found through -I include: shared by device and host code.
#pragma once

#ifndef FACTOR
#error "FACTOR must be defined with -DFACTOR=..."
#endif
#ifdef POISON
#error "POISON must be undefined by -UPOISON"
#endif

#define OFFSET 0.5f

// The host reference of saxpy (kernels.hip) and of fill (main.hip).
inline float saxpy_reference(float x, float y) { return FACTOR * x + y + OFFSET; }
