// A program's own AddressSanitizer options, linked beside a HIP source built with
// -fsanitize=address: they take the place of the ones hipmlir's link would add.
extern "C" const char* __asan_default_options() { return "detect_stack_use_after_return=0"; }
