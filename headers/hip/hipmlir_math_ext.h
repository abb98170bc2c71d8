#ifndef HIPMLIR_MATH_EXT_H
#define HIPMLIR_MATH_EXT_H
#endif
