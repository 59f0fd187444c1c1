/* The fixture of an ATT module's unit tests over the host mock (host_mock.h): the module is
 * linked into the test as msperf_plugin_v1 and runs against a fake engine, so its vector
 * clock is the test's to set. */
#ifndef MSPERF_TESTS_ATT_MOCK_H
#define MSPERF_TESTS_ATT_MOCK_H

#include <msperf/details.h>
#include <msperf/plugin.h>

extern const msperf_plugin msperf_plugin_v1;

typedef struct {
  msperf_engine *engine;
  void *state;                 /* the module's */
} am_fixture;

/* The engine of the fixture *state. */
#define AM_ENGINE(state) (((am_fixture *) *(state))->engine)

/* cmocka setup and teardown: a fake engine and the module's init; its fini and the engine's
 * end. */
int am_setup (void **state);
int am_teardown (void **state);

/* Calls the module's model slot for an op named op_name in mode, with att (JSON, NULL = no
 * att object). Transfer full. */
msperf_result *am_model (void **state, const char *op_name, const char *mode,
                         const char *att_json, msperf_status *status);

/* The detail key of r (fails the test when absent). Transfer none. */
const msperf_value *am_detail (const msperf_result *r, const char *key);

/* Items of a LIST detail (fails the test for anything else). */
guint am_detail_len (const msperf_result *r, const char *key);

#endif
