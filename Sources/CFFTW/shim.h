// FFTW 3 (libfftw3-dev), double precision: real-to-complex transforms for vibration spectra.
#include <fftw3.h>
