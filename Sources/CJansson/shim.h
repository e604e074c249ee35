// Jansson (libjansson-dev): every JSON message from outside is read by it, strictly, never by hand.
#ifndef PLUMB_CJANSSON_SHIM_H
#define PLUMB_CJANSSON_SHIM_H
#include <jansson.h>
#endif
