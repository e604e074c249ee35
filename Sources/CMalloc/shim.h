// glibc's malloc tuning, mallopt(3) and malloc_trim(3), which Glibc's module does not export.
#ifndef PLUMB_CMALLOC_SHIM_H
#define PLUMB_CMALLOC_SHIM_H
#include <malloc.h>
#endif
