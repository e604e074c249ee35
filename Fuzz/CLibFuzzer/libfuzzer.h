// libFuzzer's driver entry point, from the compiler-rt library that `-sanitize=fuzzer` links
// (compiler-rt/include/fuzzer/FuzzedDataProvider.h's sibling, FuzzerInterface.h). Declared here
// because the toolchain ships the library but not the header.
#include <stddef.h>
#include <stdint.h>

typedef int (*PlumbFuzzUserCallback)(const uint8_t *data, size_t size);

/// Runs libFuzzer with the command line in argc/argv, calling `callback` for every input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, PlumbFuzzUserCallback callback);
