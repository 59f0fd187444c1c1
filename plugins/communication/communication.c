/* msperf module "communication": collective latencies from the hcom_* microbenchmark CSVs
 * (reference §1.5, §2.9, quirks Q9, Q10, Q11). An exact (message_bytes, num_devices[, tier])
 * row answers MEASURED 0.9; otherwise the message size is bracketed inside its
 * (num_devices, tier) group and interpolated (alpha-beta least squares over the whole group, or
 * linear between the bracket rows), clamped to the bracket latencies: INTERPOLATED 0.8. Sizes
 * outside the measured range miss with shape_mismatch: there is no extrapolation.
 *
 * Two query forms:
 *
 * 1. An op of an entry with `category: communication`:
 *      all_reduce(x, rank, rank_group)          all_gather(x, dim, rank, rank_group)
 *      reduce_scatter(x, dim, rank, rank_group) all_to_all(x, out_splits, in_splits, rank, rank_group)
 *    message_bytes = numel(x) * element size (all_gather: the per-rank input as given);
 *    tensor_cast.reduce_scatter.default divides it by num_devices (integer division, HCCL
 *    recvCount is per rank, Q11); num_devices = len(rank_group). The entry's optional
 *    `interpolation_method` applies.
 *
 * 2. A sub-query (query->params is a MAP), sent by core/composite.c and by moe_fused. Keys:
 *      message_bytes         int >= 0, required: per-rank message size in bytes
 *      num_devices           int >= 1, or
 *      rank_group            int list (num_devices = its length when num_devices is absent;
 *                            with a device comm grid it also gives the topology tier)
 *      interpolation_method  "alpha_beta" (default) | "bracket_linear", optional
 *      topology_tier         int, optional: an explicit tier, used instead of the grid's
 *    The kernel is query->kernel_types[0].
 *
 * Topology tier: with a comm grid in the device profile (msperf_engine_comm_grid), the ranks'
 * row-major coordinates give the outermost grid dimension in which they differ; the tier is the
 * largest configured tier key <= that dimension (device profiles carry one tier per grid
 * dimension, so it is that dimension; identical coordinates give the innermost tier). The CSV's
 * topology_tier column is matched only when the tier is known; without a grid rows of different
 * tiers compete and the first wins (Q10): the module warns once per CSV when that happens. */
#include <config.h>
#include <pthread.h>
#define G_LOG_DOMAIN "msperf"
#include <math.h>
#include <string.h>
#include <msperf/plugin.h>

#define CONFIDENCE_EXACT 0.9
#define CONFIDENCE_INTERPOLATED 0.8

typedef struct comm_state {
  /* CSV paths already checked for competing tiers (Q10): one warning per CSV per model. The
   * state is shared by every thread's queries: the set is guarded by its own lock. */
  pthread_mutex_t lock;
  GHashTable *tier_checked;
} comm_state;

/* One resolved request, whichever form it came from. */
typedef struct comm_request {
  const char *kernel;
  int64_t message_bytes;
  int64_t num_devices;
  int64_t tier;                 /* -1 = unknown: no tier filter */
  const msperf_value *method;   /* the interpolation_method value, or NULL (alpha_beta) */
} comm_request;

/* Tier of a rank group on the device grid (reference §2.9, upstream get_topology_tier).
 * FALSE when the group cannot be placed (not an int list, empty, negative rank). */
static gboolean
tier_from_grid (const int64_t *grid, size_t n_dims, const msperf_value *group, int64_t *tier)
{
  int64_t first[MSPERF_MAX_RANK] = { 0 };
  size_t diff = n_dims; /* outermost dimension in which some rank differs; n_dims = none */

  if (n_dims == 0 || n_dims > MSPERF_MAX_RANK || group == NULL || !msperf_value_is_int_list (group)
      || group->items->len == 0)
    return FALSE;
  for (size_t d = 0; d < n_dims; d++)
    if (grid[d] <= 0)
      return FALSE;
  for (guint k = 0; k < group->items->len; k++)
    {
      int64_t rank = ((const msperf_value *) g_ptr_array_index (group->items, k))->i;
      int64_t coord[MSPERF_MAX_RANK] = { 0 };

      if (rank < 0)
        return FALSE;
      /* Row-major, last dimension fastest; every dimension wraps as upstream's does. */
      for (size_t d = n_dims; d-- > 0;)
        {
          coord[d] = rank % grid[d];
          rank /= grid[d];
        }
      if (k == 0)
        memcpy (first, coord, sizeof first);
      for (size_t d = 0; d < diff; d++)
        if (coord[d] != first[d])
          {
            diff = d;
            break;
          }
    }
  /* One tier per grid dimension (device.c enforces it): the largest key <= diff is diff;
   * ranks that never differ use the fastest (innermost) tier, as upstream. */
  *tier = (int64_t) (diff == n_dims ? n_dims - 1 : diff);
  return TRUE;
}

static gboolean
parse_number (const char *s, double *out)
{
  char *end;
  double v;

  if (s == NULL || *s == '\0')
    return FALSE;
  v = g_ascii_strtod (s, &end);
  while (*end == ' ')
    end++;
  if (end == s || *end != '\0' || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
row_number (const msperf_table *t, size_t row, int col, double *out)
{
  return col >= 0 && parse_number (msperf_table_cell (t, row, col), out);
}

/* Q10: without a tier filter, rows of different tiers with the same (message_bytes,
 * num_devices) compete and the first wins. Checked once per CSV; warns when it happens. */
static void
check_competing_tiers (comm_state *st, const msperf_table *t, int c_mb, int c_nd, int c_tier)
{
  const char *path = msperf_table_path (t);
  g_autoptr (GHashTable) first_tier = NULL;
  size_t n_conflicts = 0;
  guint first_line = 0;
  gboolean checked;

  pthread_mutex_lock (&st->lock);
  checked = !g_hash_table_add (st->tier_checked, g_strdup (path));
  pthread_mutex_unlock (&st->lock);
  if (checked)
    return;
  first_tier = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      double mb, nd;
      const char *tier = msperf_table_cell (t, row, c_tier);
      const char *seen;
      char *key;

      if (!msperf_table_row_valid (t, row) || !row_number (t, row, c_mb, &mb)
          || !row_number (t, row, c_nd, &nd))
        continue;
      key = g_strdup_printf ("%.17g|%.17g", mb, nd);
      seen = g_hash_table_lookup (first_tier, key);
      if (seen == NULL)
        g_hash_table_insert (first_tier, key, (gpointer) tier);
      else
        {
          if (strcmp (seen, tier) != 0 && n_conflicts++ == 0)
            first_line = msperf_table_row_line (t, row);
          g_free (key);
        }
    }
  if (n_conflicts > 0)
    g_warning ("%s:%u: %zu row(s) repeat a (message_bytes, num_devices) pair with another "
               "topology_tier and no comm grid is configured: the first row of each pair answers "
               "(set comm.grid in the device profile to filter by tier)",
               path, first_line, n_conflicts);
}

static void
detail_tier (msperf_result *r, int64_t tier)
{
  if (tier >= 0)
    msperf_result_detail_int (r, "topology_tier", tier);
  else
    msperf_result_detail_value (r, "topology_tier", msperf_value_new (MSPERF_VALUE_NONE));
}

static void
set_comm_hit (msperf_result *r, const comm_request *req, msperf_source source, double latency,
              double confidence)
{
  msperf_tensor shape = { 0 };

  msperf_result_set_hit (r, source, latency, confidence, req->kernel, "comm");
  detail_tier (r, req->tier);
  msperf_result_detail_int (r, "message_bytes", req->message_bytes);
  msperf_result_detail_int (r, "num_devices", req->num_devices);
  shape.rank = 1;
  shape.dims[0] = req->message_bytes;
  shape.format = MSPERF_FORMAT_ND;
  msperf_result_add_kernel_shape (r, &shape);
}

/* Ordinary least squares lat = alpha + beta * mb with centred sums (Q9: stable for byte counts
 * up to 2^29 and more); one distinct size gives the first latency. */
static double
alpha_beta_predict (const GArray *xs, const GArray *ys, double mb, double *alpha, double *beta)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  guint n = xs->len;

  for (guint i = 0; i < n; i++)
    {
      mx += g_array_index (xs, double, i);
      my += g_array_index (ys, double, i);
    }
  mx /= n;
  my /= n;
  for (guint i = 0; i < n; i++)
    {
      double dx = g_array_index (xs, double, i) - mx;
      sxx += dx * dx;
      sxy += dx * (g_array_index (ys, double, i) - my);
    }
  if (n < 2 || !(sxx > 0))
    {
      *alpha = g_array_index (ys, double, 0);
      *beta = 0;
      return *alpha;
    }
  *beta = sxy / sxx;
  *alpha = my - *beta * mx;
  return *alpha + *beta * mb;
}

/* The CSV query of reference §2.9 ("_query_comm_csv"). */
static msperf_status
query_csv (comm_state *st, msperf_engine *engine, const comm_request *req, msperf_result *r)
{
  g_autoptr (GError) error = NULL;
  const msperf_table *t = msperf_engine_table (engine, req->kernel, &error);
  int c_mb, c_nd, c_tier;
  gboolean has_latency = FALSE, filter_tier;
  double mb = (double) req->message_bytes, nd = (double) req->num_devices;
  g_autoptr (GArray) xs = NULL;
  g_autoptr (GArray) ys = NULL;
  gboolean have_lo = FALSE, have_hi = FALSE;
  double lo = 0, hi = 0, lat_lo = 0, lat_hi = 0, pred, alpha = NAN, beta = NAN;
  const char *method;

  if (t == NULL)
    return msperf_result_set_miss (r, "csv_not_found");
  c_mb = msperf_table_column (t, "message_bytes");
  c_nd = msperf_table_column (t, "num_devices");
  has_latency = msperf_table_has_latency_column (t);
  if (c_mb < 0 || c_nd < 0 || !has_latency)
    return msperf_result_set_miss (r, "csv_format_raw");
  c_tier = msperf_table_column (t, "topology_tier");
  filter_tier = c_tier >= 0 && req->tier >= 0;
  if (c_tier >= 0 && !filter_tier)
    check_competing_tiers (st, t, c_mb, c_nd, c_tier);

  /* Exact: the first row of that size, group and tier with a valid latency. */
  xs = g_array_new (FALSE, FALSE, sizeof (double));
  ys = g_array_new (FALSE, FALSE, sizeof (double));
  for (size_t row = 0; row < msperf_table_n_rows (t); row++)
    {
      double rmb, rnd, rtier, lat;

      if (!msperf_table_row_valid (t, row) || !row_number (t, row, c_nd, &rnd) || rnd != nd
          || !row_number (t, row, c_mb, &rmb))
        continue;
      if (filter_tier && (!row_number (t, row, c_tier, &rtier) || rtier != (double) req->tier))
        continue;
      lat = msperf_table_row_latency (t, row);
      if (rmb == mb)
        {
          set_comm_hit (r, req, MSPERF_SOURCE_MEASURED, lat, CONFIDENCE_EXACT);
          return MSPERF_HIT;
        }
      /* The (num_devices, tier) group, in file order, for the bracket and the fit. */
      g_array_append_val (xs, rmb);
      g_array_append_val (ys, lat);
      if (rmb < mb && (!have_lo || rmb > lo))
        {
          have_lo = TRUE;
          lo = rmb;
          lat_lo = lat;
        }
      if (rmb > mb && (!have_hi || rmb < hi))
        {
          have_hi = TRUE;
          hi = rmb;
          lat_hi = lat;
        }
    }
  /* Outside the measured range (or no group at all): never extrapolated. An equal lo and hi
   * would be an exact row, answered above. */
  if (!have_lo || !have_hi)
    return msperf_result_set_miss (r, "shape_mismatch");

  method = req->method ? msperf_value_get_string (req->method) : "alpha_beta";
  if (method != NULL && strcmp (method, "alpha_beta") == 0)
    pred = alpha_beta_predict (xs, ys, mb, &alpha, &beta);
  else if (method != NULL && strcmp (method, "bracket_linear") == 0)
    pred = lat_lo + (mb - lo) / (hi - lo) * (lat_hi - lat_lo);
  else
    return msperf_result_set_miss (r, "invalid_comm_interpolation_method");
  pred = CLAMP (pred, MIN (lat_lo, lat_hi), MAX (lat_lo, lat_hi));

  msperf_result_set_method (r, strcmp (method, "alpha_beta") == 0 ? "comm_alpha_beta"
                                                                  : "comm_bracket_linear");
  set_comm_hit (r, req, MSPERF_SOURCE_INTERPOLATED, pred, CONFIDENCE_INTERPOLATED);
  msperf_result_set_interpolation_dim (r, 1);
  msperf_result_detail_string (r, "interpolation_method", method);
  msperf_result_detail_int (r, "bracket_lo_bytes", (int64_t) lo);
  msperf_result_detail_int (r, "bracket_hi_bytes", (int64_t) hi);
  if (!isnan (alpha))
    {
      msperf_result_detail_double (r, "alpha_us", alpha);
      msperf_result_detail_double (r, "beta_us_per_byte", beta);
      msperf_result_detail_int (r, "fit_points", xs->len);
    }
  return MSPERF_HIT;
}

static int64_t
tier_of_group (msperf_engine *engine, const msperf_value *group)
{
  const int64_t *grid;
  size_t n;
  int64_t tier;

  if (group == NULL || !msperf_engine_comm_grid (engine, &grid, &n)
      || !tier_from_grid (grid, n, group, &tier))
    return -1;
  return tier;
}

/* Form 1: the collective op itself (reference §2.9 "TC args"). */
static msperf_status
request_from_op (const msperf_query *q, comm_request *req, msperf_result *r)
{
  const msperf_value *x = msperf_op_arg (q->op, 0);
  const msperf_value *group = msperf_op_arg (q->op, -1);
  int64_t numel;

  if (x == NULL || x->kind != MSPERF_VALUE_TENSOR || group == NULL
      || group->kind != MSPERF_VALUE_LIST)
    return msperf_result_set_miss (r, "invalid_args");
  numel = msperf_tensor_numel (&x->tensor);
  if (numel < 0
      || !msperf_int64_checked_mul (numel, msperf_dtype_size (x->tensor.dtype),
                                    &req->message_bytes))
    return msperf_result_set_miss (r, "invalid_args");
  req->num_devices = group->items->len;
  /* HCCL reduce_scatter counts the per-rank output (recvCount); the trace gives the input. */
  if (strcmp (q->op->name, "tensor_cast.reduce_scatter.default") == 0 && req->num_devices > 1)
    req->message_bytes /= req->num_devices;
  req->tier = tier_of_group (q->engine, group);
  req->method = q->entry && q->entry->raw
                  ? msperf_value_lookup (q->entry->raw, "interpolation_method") : NULL;
  return MSPERF_HIT;
}

/* Form 2: a sub-query's parameters (keys documented at the top of this file). */
static msperf_status
request_from_params (const msperf_query *q, comm_request *req, msperf_result *r)
{
  const msperf_value *group = msperf_value_lookup (q->params, "rank_group");
  const msperf_value *nd = msperf_value_lookup (q->params, "num_devices");
  const msperf_value *tier = msperf_value_lookup (q->params, "topology_tier");

  if (!msperf_value_get_int (msperf_value_lookup (q->params, "message_bytes"),
                             &req->message_bytes)
      || req->message_bytes < 0)
    return msperf_result_set_miss (r, "invalid_args");
  if (group != NULL && !msperf_value_is_int_list (group))
    return msperf_result_set_miss (r, "invalid_args");
  if (nd != NULL)
    {
      if (!msperf_value_get_int (nd, &req->num_devices) || req->num_devices < 1)
        return msperf_result_set_miss (r, "invalid_args");
    }
  else if (group != NULL && group->items->len > 0)
    req->num_devices = group->items->len;
  else
    return msperf_result_set_miss (r, "invalid_args");
  if (tier != NULL && tier->kind != MSPERF_VALUE_NONE)
    {
      if (!msperf_value_get_int (tier, &req->tier) || req->tier < 0)
        return msperf_result_set_miss (r, "invalid_args");
    }
  else
    req->tier = tier_of_group (q->engine, group);
  req->method = msperf_value_lookup (q->params, "interpolation_method");
  if (req->method && req->method->kind == MSPERF_VALUE_NONE)
    req->method = NULL;
  return MSPERF_HIT;
}

static msperf_status
comm_lookup (msperf_engine *engine, void *state, const msperf_query *q, msperf_result *r)
{
  comm_request req = { 0 };
  msperf_status status;

  g_return_val_if_fail (state != NULL && q != NULL && r != NULL, MSPERF_ERROR);
  if (q->kernel_types == NULL || q->kernel_types[0] == NULL)
    return msperf_result_set_miss (r, "unmapped");
  req.kernel = q->kernel_types[0];
  req.tier = -1;
  if (q->params != NULL && q->params->kind == MSPERF_VALUE_MAP)
    status = request_from_params (q, &req, r);
  else if (q->op != NULL)
    status = request_from_op (q, &req, r);
  else
    status = msperf_result_set_miss (r, "invalid_args");
  if (status != MSPERF_HIT)
    return status;
  return query_csv (state, engine, &req, r);
}

static gboolean
comm_init (msperf_engine *engine, void **state, GError **error)
{
  comm_state *st = g_new0 (comm_state, 1);

  (void) engine;
  (void) error;
  pthread_mutex_init (&st->lock, NULL);
  st->tier_checked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  *state = st;
  return TRUE;
}

static void
comm_fini (void *state)
{
  comm_state *st = state;

  if (st == NULL)
    return;
  g_hash_table_unref (st->tier_checked);
  pthread_mutex_destroy (&st->lock);
  g_free (st);
}

/* Mapping entries of category communication come here whatever their query_mode says
 * (reference §2.2); alpha-beta and bracket_linear are this module's own interpolation. */
static const char *const comm_categories[] = { "communication", NULL };

/* HCCL names its collective kernels hcom_* (reference §1.1): their tables may live in the
 * database's communication_data_ref. */
static const char *const comm_prefixes[] = { "hcom_", NULL };

MSPERF_PLUGIN_DEFINE (
  .name = "communication",
  .version = PACKAGE_VERSION,
  .description = "collectives: exact and bracketed hcom_* CSV lookup (alpha-beta, bracket_linear)",
  .flags = MSPERF_PLUGIN_OWN_INTERPOLATION,
  .categories = comm_categories,
  .collective_prefixes = comm_prefixes,
  .init = comm_init,
  .fini = comm_fini,
  .lookup = comm_lookup,
);
