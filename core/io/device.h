/* msperf (internal) — device profiles (policies/devices/NAME.yaml, FORMATS §4) for the roofline
 * and the ATT cycle → µs conversion. */
#ifndef MSPERF_CORE_DEVICE_H
#define MSPERF_CORE_DEVICE_H

#include <glib.h>
#include <msperf/dtype.h>
#include "io/op_families.h"

G_BEGIN_DECLS

/* One interconnect tier, innermost-last as in the upstream comm grid. */
typedef struct msperf_comm_tier {
  char *name;
  double bandwidth_gbps;
  double latency_us;
} msperf_comm_tier;

typedef struct msperf_device {
  char *name;
  char *path;                                 /* the file it was loaded from */
  double peak_tflops[MSPERF_DTYPE_N_TYPES];   /* dense; NAN where not given */
  double memory_bandwidth_gbps;
  double launch_overhead_us;
  double vector_clock_ghz;                    /* NAN when null */
  double memory_gib;                          /* device memory; NAN when not given */
  char **aliases;                             /* NULL-terminated, never NULL */
  GArray *comm_grid;                          /* int64_t, outermost first; NULL when null */
  GPtrArray *tiers;                           /* msperf_comm_tier*, never NULL */
  /* Without a grid: ranks numbered node by node, node_devices to a node, and the link between
   * nodes (a collective spanning nodes runs on it); 0 and NULL when not given. */
  int64_t node_devices;
  msperf_comm_tier *node_tier;
  msperf_op_families *families;               /* the roofline's op families, never NULL */
} msperf_device;

/* Loads one profile, with the shipped op families (policies/roofline-families.yaml) its
 * roofline uses. Strict: unknown keys, wrong types and out-of-range values are
 * MSPERF_ERROR_INVALID "FILE:LINE: ...". peak_tflops keys: bf16, fp16, fp32, fp8 (both fp8
 * dtypes), int8 (also int4). Transfer full. */
msperf_device *msperf_device_load (const char *path, GError **error);
/* A path when name_or_path contains '/' or ends in ".yaml"; else <dir>/<name>.yaml in the
 * first of search_dirs (NULL-terminated) that has it; MSPERF_ERROR_NOT_FOUND otherwise. */
msperf_device *msperf_device_find (const char *name_or_path, const char *const *search_dirs,
                                   GError **error);
/* The first profile (directories in order, files sorted by name) whose aliases contain alias
 * (a database's `device:` value), or NULL. Unreadable profiles are skipped. */
msperf_device *msperf_device_find_alias (const char *alias, const char *const *search_dirs);
void msperf_device_free (msperf_device *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (msperf_device, msperf_device_free)

/* The peak for a dtype, NAN when the profile gives none. */
double msperf_device_peak_tflops (const msperf_device *d, msperf_dtype dtype);

G_END_DECLS

#endif /* MSPERF_CORE_DEVICE_H */
