/* msperf — dtype and tensor-format names (FORMATS.md §1 and §2, reference §1.3). */
#include <config.h>
#include <string.h>
#include <msperf/dtype.h>

/* Per dtype: the profiling spelling upstream DTYPE_MAP writes (or the CANN "DT_" name for the
 * dtypes it does not map), the torch name, the element size and whether DTYPE_MAP maps it. */
typedef struct {
  const char *profiling;
  const char *torch;
  guint size;
  gboolean mapped;
} dtype_info;

static const dtype_info infos[MSPERF_DTYPE_N_TYPES] = {
  [MSPERF_DTYPE_UNKNOWN] = { "UNKNOWN", "unknown", 0, FALSE },
  [MSPERF_DTYPE_UNDEFINED] = { "DT_UNDEFINED", "undefined", 0, FALSE },
  [MSPERF_DTYPE_BF16] = { "DT_BF16", "bfloat16", 2, TRUE },
  [MSPERF_DTYPE_FLOAT16] = { "DT_FLOAT16", "float16", 2, TRUE },
  [MSPERF_DTYPE_FLOAT32] = { "FLOAT", "float32", 4, TRUE },
  [MSPERF_DTYPE_FLOAT64] = { "DT_DOUBLE", "float64", 8, FALSE },
  /* int4 is packed two per byte, but upstream byte counts treat it as one byte. */
  [MSPERF_DTYPE_INT4] = { "DT_INT4", "int4", 1, FALSE },
  [MSPERF_DTYPE_INT8] = { "INT8", "int8", 1, TRUE },
  [MSPERF_DTYPE_UINT8] = { "UINT8", "uint8", 1, FALSE },
  [MSPERF_DTYPE_INT16] = { "INT16", "int16", 2, FALSE },
  [MSPERF_DTYPE_UINT16] = { "DT_UINT16", "uint16", 2, FALSE },
  [MSPERF_DTYPE_INT32] = { "INT32", "int32", 4, TRUE },
  [MSPERF_DTYPE_UINT32] = { "DT_UINT32", "uint32", 4, FALSE },
  [MSPERF_DTYPE_INT64] = { "INT64", "int64", 8, TRUE },
  [MSPERF_DTYPE_UINT64] = { "DT_UINT64", "uint64", 8, FALSE },
  [MSPERF_DTYPE_BOOL] = { "BOOL", "bool", 1, TRUE },
  /* Not in upstream's DTYPE_MAP; mapped here (a msperf extension) so that the FP8 tables of
   * an imported aiconfigurator database answer FP8 ops: no upstream table has FP8 rows, so no
   * upstream answer changes. */
  [MSPERF_DTYPE_FP8_E4M3] = { "DT_FLOAT8_E4M3FN", "float8_e4m3fn", 1, TRUE },
  [MSPERF_DTYPE_FP8_E5M2] = { "DT_FLOAT8_E5M2", "float8_e5m2", 1, TRUE },
  /* FP4 is packed two per byte; counted as one byte, as int4 is. */
  [MSPERF_DTYPE_FLOAT4_E2M1] = { "DT_FLOAT4_E2M1", "float4_e2m1fn_x2", 1, FALSE },
};

typedef struct {
  const char *name;
  msperf_dtype dtype;
} dtype_alias;

/* Profiling spellings without their optional "DT_" prefix: DT_X and X are one dtype. */
static const dtype_alias profiling_names[] = {
  { "UNDEFINED", MSPERF_DTYPE_UNDEFINED },
  { "BF16", MSPERF_DTYPE_BF16 },
  { "FLOAT16", MSPERF_DTYPE_FLOAT16 },
  { "FP16", MSPERF_DTYPE_FLOAT16 }, /* hccl CSVs write DT_FP16 */
  { "FLOAT", MSPERF_DTYPE_FLOAT32 },
  { "DOUBLE", MSPERF_DTYPE_FLOAT64 },
  { "INT4", MSPERF_DTYPE_INT4 },
  { "INT8", MSPERF_DTYPE_INT8 },
  { "UINT8", MSPERF_DTYPE_UINT8 },
  { "INT16", MSPERF_DTYPE_INT16 },
  { "UINT16", MSPERF_DTYPE_UINT16 },
  { "INT32", MSPERF_DTYPE_INT32 },
  { "UINT32", MSPERF_DTYPE_UINT32 },
  { "INT64", MSPERF_DTYPE_INT64 },
  { "UINT64", MSPERF_DTYPE_UINT64 },
  { "BOOL", MSPERF_DTYPE_BOOL },
  { "FLOAT8_E4M3FN", MSPERF_DTYPE_FP8_E4M3 },
  { "FLOAT8_E5M2", MSPERF_DTYPE_FP8_E5M2 },
  { "FLOAT4_E2M1", MSPERF_DTYPE_FLOAT4_E2M1 },
};

msperf_dtype
msperf_dtype_from_string (const char *name)
{
  const char *bare;

  if (name == NULL || *name == '\0')
    return MSPERF_DTYPE_UNKNOWN;

  /* Torch names, optionally written as the Python repr "torch.bfloat16". */
  bare = g_str_has_prefix (name, "torch.") ? name + strlen ("torch.") : name;
  for (int d = MSPERF_DTYPE_BF16; d < MSPERF_DTYPE_N_TYPES; d++)
    if (strcmp (bare, infos[d].torch) == 0)
      return (msperf_dtype) d;
  if (bare != name)
    return MSPERF_DTYPE_UNKNOWN;

  bare = g_str_has_prefix (name, "DT_") ? name + strlen ("DT_") : name;
  for (size_t k = 0; k < G_N_ELEMENTS (profiling_names); k++)
    if (strcmp (bare, profiling_names[k].name) == 0)
      return profiling_names[k].dtype;
  return MSPERF_DTYPE_UNKNOWN;
}

const char *
msperf_dtype_profiling_name (msperf_dtype dtype)
{
  if ((int) dtype < 0 || dtype >= MSPERF_DTYPE_N_TYPES)
    dtype = MSPERF_DTYPE_UNKNOWN;
  return infos[dtype].profiling;
}

const char *
msperf_dtype_torch_name (msperf_dtype dtype)
{
  if ((int) dtype < 0 || dtype >= MSPERF_DTYPE_N_TYPES)
    dtype = MSPERF_DTYPE_UNKNOWN;
  return infos[dtype].torch;
}

guint
msperf_dtype_size (msperf_dtype dtype)
{
  if ((int) dtype < 0 || dtype >= MSPERF_DTYPE_N_TYPES)
    return 0;
  return infos[dtype].size;
}

gboolean
msperf_dtype_is_mapped (msperf_dtype dtype)
{
  if ((int) dtype < 0 || dtype >= MSPERF_DTYPE_N_TYPES)
    return FALSE;
  return infos[dtype].mapped;
}

msperf_format
msperf_format_from_string (const char *name)
{
  /* A missing format entry counts as ND (reference §1.3). */
  if (name == NULL || *name == '\0' || strcmp (name, "ND") == 0)
    return MSPERF_FORMAT_ND;
  if (strcmp (name, "FRACTAL_NZ") == 0)
    return MSPERF_FORMAT_FRACTAL_NZ;
  if (strcmp (name, "NULL") == 0)
    return MSPERF_FORMAT_NULL;
  return MSPERF_FORMAT_OTHER;
}

const char *
msperf_format_name (msperf_format format)
{
  switch (format)
    {
    case MSPERF_FORMAT_ND:
      return "ND";
    case MSPERF_FORMAT_FRACTAL_NZ:
      return "FRACTAL_NZ";
    case MSPERF_FORMAT_NULL:
      return "NULL";
    case MSPERF_FORMAT_OTHER:
    default:
      return "OTHER";
    }
}
