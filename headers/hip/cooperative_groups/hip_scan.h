// ROCm's header of the cooperative groups' scan operations: hipmlir defines them in
// hip_cooperative_groups.h.
#pragma once
#include "../hip_cooperative_groups.h"
