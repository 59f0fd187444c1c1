/* msperf — data types and tensor formats shared by the core and modules. */
#ifndef MSPERF_DTYPE_H
#define MSPERF_DTYPE_H

#include <msperf/api.h>
#include <glib.h>

G_BEGIN_DECLS

/* One value per dtype msperf knows. The profiling spellings DT_X and X are the same dtype;
 * torch names map onto them (float16 → MSPERF_DTYPE_FLOAT16, reference quirk Q3). */
typedef enum {
  MSPERF_DTYPE_UNKNOWN = 0, /* a spelling msperf does not know: never matches anything */
  MSPERF_DTYPE_UNDEFINED,   /* DT_UNDEFINED: an absent optional tensor in a CSV row */
  MSPERF_DTYPE_BF16,
  MSPERF_DTYPE_FLOAT16,
  MSPERF_DTYPE_FLOAT32,
  MSPERF_DTYPE_FLOAT64,
  MSPERF_DTYPE_INT4,
  MSPERF_DTYPE_INT8,
  MSPERF_DTYPE_UINT8,
  MSPERF_DTYPE_INT16,
  MSPERF_DTYPE_UINT16,
  MSPERF_DTYPE_INT32,
  MSPERF_DTYPE_UINT32,
  MSPERF_DTYPE_INT64,
  MSPERF_DTYPE_UINT64,
  MSPERF_DTYPE_BOOL,
  MSPERF_DTYPE_FP8_E4M3,
  MSPERF_DTYPE_FP8_E5M2,
  MSPERF_DTYPE_FLOAT4_E2M1, /* DT_FLOAT4_E2M1, torch float4_e2m1fn_x2 (MXFP4/NVFP4 weights) */
  MSPERF_DTYPE_N_TYPES
} msperf_dtype;

typedef enum {
  MSPERF_FORMAT_ND = 0,
  MSPERF_FORMAT_FRACTAL_NZ,
  MSPERF_FORMAT_NULL, /* absent tensor */
  MSPERF_FORMAT_OTHER
} msperf_format;

/* Parses a torch name ("bfloat16", "torch.float16") or a profiling spelling ("DT_BF16",
 * "FLOAT", "DT_FLOAT"). Returns MSPERF_DTYPE_UNKNOWN for anything else. */
MSPERF_API msperf_dtype msperf_dtype_from_string (const char *name);
/* Canonical profiling spelling as the upstream DTYPE_MAP writes it ("DT_BF16", "FLOAT",
 * "INT8", ...); "DT_FLOAT16" for float16. Transfer none. */
MSPERF_API const char *msperf_dtype_profiling_name (msperf_dtype dtype);
/* Torch spelling ("bfloat16"). Transfer none. */
MSPERF_API const char *msperf_dtype_torch_name (msperf_dtype dtype);
/* Element size in bytes as upstream counts it; 0 for unknown/undefined (int4 counts 1). */
MSPERF_API guint msperf_dtype_size (msperf_dtype dtype);
/* TRUE when the upstream DTYPE_MAP maps this torch dtype (bf16, fp16, int8, int32, int64,
 * float32, bool): only those can match a compute row. */
MSPERF_API gboolean msperf_dtype_is_mapped (msperf_dtype dtype);

MSPERF_API msperf_format msperf_format_from_string (const char *name);
MSPERF_API const char *msperf_format_name (msperf_format format);

G_END_DECLS

#endif /* MSPERF_DTYPE_H */
