#pragma once
#include <vector>

// The host reference the device result is checked against.
std::vector<unsigned> histogram_reference(const std::vector<unsigned char>& data, int bins);
