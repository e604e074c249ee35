// libFuzzer's driver, in the compiler-rt library that `-sanitize=fuzzer` links (defined in its
// FuzzerDriver.cpp). Declared here because the toolchain installs no header for it (only
// fuzzer/FuzzedDataProvider.h).
#include <stddef.h>
#include <stdint.h>

typedef int (*PlumbFuzzUserCallback)(const uint8_t *data, size_t size);

/// Runs libFuzzer with the command line in argc/argv, calling `callback` for every input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, PlumbFuzzUserCallback callback);
