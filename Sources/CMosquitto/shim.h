// libmosquitto's client API, plus mqtt_protocol.h where the MQTT_PROP_* and reason-code
// constants live.
#ifndef PLUMB_CMOSQUITTO_SHIM_H
#define PLUMB_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
