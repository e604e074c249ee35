// libyaml: the config file is parsed by it, never by hand.
#ifndef PLUMB_CYAML_SHIM_H
#define PLUMB_CYAML_SHIM_H
#include <yaml.h>
#endif
