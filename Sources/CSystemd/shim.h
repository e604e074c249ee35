// sd_notify(3): readiness, watchdog and stopping notifications to systemd.
#ifndef PLUMB_CSYSTEMD_SHIM_H
#define PLUMB_CSYSTEMD_SHIM_H
#include <systemd/sd-daemon.h>
#endif
