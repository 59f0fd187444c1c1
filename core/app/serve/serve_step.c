/* msperf — the latency of one scheduler step (doc/serving.md §3).
 *
 * A step is one forward pass over a mixed batch: prefill chunks (new tokens after some cached
 * ones) and decode sequences. Its ops split in two: attention, whose cost depends on each
 * sequence's query and KV lengths, and everything else (GEMMs, norms, collectives, MoE), whose
 * cost depends on the step's tokens (and, for the LM head, its sequences). Both come from the
 * template's own passes, answered op by op through the engine:
 *
 *   other(step)  = A(T) + D(n_dec) - A(n_dec·q)       T tokens, q = 1 + nextn
 *   attention    = Σ P(ctx+c)·c·(2ctx+c)/(ctx+c)²  +  Dattn(n_dec, mean KV length)
 *
 * A(x) = non-attention ops of a prefill of one sequence of x tokens (LM head on one row),
 * D(n) = non-attention ops of a decode step of n sequences (LM head on n·q rows), P(L) = the
 * attention of a causal prefill of L tokens (a chunk's share is the part of the causal
 * triangle it computes), Dattn(n, k) = decode attention of n sequences at context k. Each
 * function is memoised on a grid (exact up to 16, then 8 points per octave; 4 for decode
 * contexts) and interpolated linearly between grid points, bilinearly for Dattn. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "app/serve/serve.h"
#include "app/trace/trace.h"

typedef struct {
  double us;
  gboolean from_data;
} answer;

typedef struct {
  double attn, attn_data, other, other_data;
} pass_parts;

/* One template pass of one model and layout: the key of the passes shared across the runs
 * of one answers object (a serving run asks a few hundred; the next run of the same model and
 * layout, another concurrency or sequence length, asks mostly the same ones). */
typedef struct {
  const msperf_model *model;
  gint64 tp, ep, dp, pp, sp, nextn;
  gint64 key;                 /* the steps memo's key: phase, batch, x */
} pass_key;

struct msperf_serve_answers {
  msperf_engine *engine;
  GHashTable *answers;        /* op body -> answer* */
  GHashTable *passes;         /* pass_key* -> pass_parts* */
  GPtrArray *bodies;
  GArray *counts;
  guint64 distinct;
};

static guint
pass_key_hash (gconstpointer p)
{
  const pass_key *k = p;
  guint64 h = (guint64) (guintptr) k->model;
  const gint64 v[] = { k->tp, k->ep, k->dp, k->pp, k->sp, k->nextn, k->key };

  for (size_t i = 0; i < G_N_ELEMENTS (v); i++)
    h = (h ^ (guint64) v[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return (guint) (h ^ (h >> 32));
}

static gboolean
pass_key_equal (gconstpointer a, gconstpointer b)
{
  const pass_key *x = a, *y = b;

  return x->model == y->model && x->tp == y->tp && x->ep == y->ep && x->dp == y->dp
         && x->pp == y->pp && x->sp == y->sp && x->nextn == y->nextn && x->key == y->key;
}

/* The grid values up to here are kept in a table (msperf_serve_grid_value above): every
 * step asks for several; the index of 2^31 is 232. */
#define GRID_TABLE 256
/* Slots of the direct-mapped cache in front of the memo (2^8). */
#define RECENT_BITS 8

typedef struct {
  gint64 key;                 /* -1: empty */
  pass_parts parts;
} recent_pass;

struct msperf_serve_steps {
  msperf_serve_answers *answers;
  const msperf_model *model;
  msperf_model_layout layout;
  int64_t nextn;
  GHashTable *memo;           /* key (gint64*) -> pass_parts* */
  guint64 points;
  int64_t grid[GRID_TABLE];   /* msperf_serve_grid_value (i) */
  /* The passes asked last, by key: consecutive steps ask mostly the same grid points, and
   * this answers them without hashing the memo. */
  recent_pass recent[1 << RECENT_BITS];
};

msperf_serve_answers *
msperf_serve_answers_new (msperf_engine *engine)
{
  msperf_serve_answers *a = g_new0 (msperf_serve_answers, 1);

  a->engine = engine;
  a->answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  a->passes = g_hash_table_new_full (pass_key_hash, pass_key_equal, g_free, g_free);
  a->bodies = g_ptr_array_new_with_free_func (g_free);
  a->counts = g_array_new (FALSE, FALSE, sizeof (gint64));
  return a;
}

void
msperf_serve_answers_free (msperf_serve_answers *a)
{
  if (a == NULL)
    return;
  g_hash_table_destroy (a->answers);
  g_hash_table_destroy (a->passes);
  g_ptr_array_free (a->bodies, TRUE);
  g_array_free (a->counts, TRUE);
  g_free (a);
}

msperf_engine *
msperf_serve_answers_engine (msperf_serve_answers *a)
{
  return a->engine;
}

guint64
msperf_serve_answers_distinct (const msperf_serve_answers *a)
{
  return a->distinct;
}

static gboolean
answer_of (msperf_serve_answers *a, const char *body, answer *out, GError **error)
{
  const answer *known = g_hash_table_lookup (a->answers, body);
  msperf_op *op;
  msperf_result *r;

  if (known)
    {
      *out = *known;
      return TRUE;
    }
  op = msperf_trace_parse_op (body, "<serving step>", 1, error);
  if (op == NULL)
    return FALSE;
  r = msperf_engine_query (a->engine, op);
  out->us = isfinite (r->latency_us) ? r->latency_us : 0;
  out->from_data = r->source == MSPERF_SOURCE_MEASURED || r->source == MSPERF_SOURCE_INTERPOLATED;
  msperf_result_free (r);
  msperf_op_free (op);
  a->distinct++;
  g_hash_table_insert (a->answers, g_strdup (body), g_memdup2 (out, sizeof *out));
  return TRUE;
}

/* The op name of a body {"op": "NAME", …} holds "attention": the attention kernels of every
 * template (attention, multihead_latent_attention). */
static gboolean
is_attention (const char *body)
{
  const char *name = strstr (body, "\"op\"");
  const char *end;

  if (name == NULL || (name = strchr (name + 4, '"')) == NULL)
    return FALSE;
  end = strchr (name + 1, '"');
  if (end == NULL)
    return FALSE;
  for (const char *p = name + 1; p + 9 <= end; p++)
    if (memcmp (p, "attention", 9) == 0)
      return TRUE;
  return FALSE;
}

msperf_serve_steps *
msperf_serve_steps_new (msperf_serve_answers *answers, const msperf_model *model,
                        const msperf_model_layout *layout, int64_t nextn)
{
  msperf_serve_steps *s = g_new0 (msperf_serve_steps, 1);

  s->answers = answers;
  s->model = model;
  s->layout = *layout;
  s->nextn = nextn;
  s->memo = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  for (int64_t i = 0; i < GRID_TABLE; i++)
    s->grid[i] = msperf_serve_grid_value (i);
  for (guint i = 0; i < G_N_ELEMENTS (s->recent); i++)
    s->recent[i].key = -1;
  return s;
}

void
msperf_serve_steps_free (msperf_serve_steps *s)
{
  if (s == NULL)
    return;
  g_hash_table_destroy (s->memo);
  g_free (s);
}

guint64
msperf_serve_steps_points (const msperf_serve_steps *s)
{
  return s->points;
}

int64_t
msperf_serve_grid_value (int64_t i)
{
  if (i <= 16)
    return i;
  return (int64_t) llround (16.0 * exp2 ((double) (i - 16) / 8.0));
}

int64_t
msperf_serve_grid_index (int64_t x)
{
  int64_t i;

  if (x <= 16)
    return x;
  i = 16 + (int64_t) floor (8.0 * log2 ((double) x / 16.0));
  while (msperf_serve_grid_value (i) > x)
    i--;
  while (msperf_serve_grid_value (i + 1) <= x)
    i++;
  return i;
}

/* msperf_serve_grid_value, from the table where it holds it. */
static int64_t
grid_value (const msperf_serve_steps *s, int64_t i)
{
  return i >= 0 && i < GRID_TABLE ? s->grid[i] : msperf_serve_grid_value (i);
}

/* msperf_serve_grid_index, from the table: the grid point of 2^k (k >= 4) is 16 + 8 (k - 4)
 * and the answer lies in that octave. */
static int64_t
grid_index (const msperf_serve_steps *s, int64_t x)
{
  int64_t i;

  if (x <= 16)
    return x;
  if (x > G_MAXINT32)
    return msperf_serve_grid_index (x);
  i = 16 + 8 * ((int64_t) g_bit_storage ((gulong) x) - 5);
  while (s->grid[i] > x)
    i--;
  while (s->grid[i + 1] <= x)
    i++;
  return i;
}

/* The parts of one template pass: decode (batch, context) or prefill (1 × seq). */
static gboolean
pass_of (msperf_serve_steps *s, gboolean decode, int64_t batch, int64_t x, pass_parts *out,
         GError **error)
{
  gint64 key = ((gint64) decode << 62) | ((gint64) batch << 31) | (gint64) x;
  recent_pass *slot = &s->recent[((guint64) key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15))
                                 >> (64 - RECENT_BITS)];
  pass_parts *known;
  msperf_serve_answers *a = s->answers;
  msperf_model_pass pass = { decode ? MSPERF_PHASE_DECODE : MSPERF_PHASE_PREFILL, batch,
                             decode ? 0 : x, decode ? x : 0, decode ? s->nextn : 0 };
  pass_parts p = { 0, 0, 0, 0 };
  pass_key pk = { s->model, s->layout.tp, s->layout.ep, s->layout.dp, s->layout.pp,
                  s->layout.sp, decode ? s->nextn : 0, key };
  const pass_parts *shared;

  if (slot->key == key)
    {
      *out = slot->parts;
      return TRUE;
    }
  known = g_hash_table_lookup (s->memo, &key);
  if (known)
    {
      *out = *known;
      slot->key = key;
      slot->parts = *known;
      return TRUE;
    }
  /* Asked by an earlier run on these answers: the same pass, the same parts. It still counts
   * as a point of this run (distinct questions of the run). */
  shared = g_hash_table_lookup (a->passes, &pk);
  if (shared)
    {
      s->points++;
      *out = *shared;
      slot->key = key;
      slot->parts = *shared;
      g_hash_table_insert (s->memo, g_memdup2 (&key, sizeof key),
                           g_memdup2 (shared, sizeof *shared));
      return TRUE;
    }
  g_ptr_array_set_size (a->bodies, 0);
  g_array_set_size (a->counts, 0);
  if (!msperf_model_pass_ops (s->model, &s->layout, &pass, a->bodies, a->counts, error))
    return FALSE;
  for (guint i = 0; i < a->bodies->len; i++)
    {
      const char *body = g_ptr_array_index (a->bodies, i);
      answer ans;
      double t;

      if (!answer_of (a, body, &ans, error))
        return FALSE;
      t = ans.us * (double) g_array_index (a->counts, gint64, i);
      if (is_attention (body))
        {
          p.attn += t;
          p.attn_data += ans.from_data ? t : 0;
        }
      else
        {
          p.other += t;
          p.other_data += ans.from_data ? t : 0;
        }
    }
  s->points++;
  *out = p;
  slot->key = key;
  slot->parts = p;
  g_hash_table_insert (s->memo, g_memdup2 (&key, sizeof key), g_memdup2 (&p, sizeof p));
  g_hash_table_insert (a->passes, g_memdup2 (&pk, sizeof pk), g_memdup2 (&p, sizeof p));
  return TRUE;
}

static void
mix (pass_parts *acc, const pass_parts *p, double w)
{
  acc->attn += w * p->attn;
  acc->attn_data += w * p->attn_data;
  acc->other += w * p->other;
  acc->other_data += w * p->other_data;
}

/* Interpolated along x on the grid: decode (batch fixed, x = context) or prefill (x = seq). */
static gboolean
along (msperf_serve_steps *s, gboolean decode, int64_t batch, double x, pass_parts *out,
       GError **error)
{
  int64_t xi = MAX (1, (int64_t) floor (x)), i = grid_index (s, xi);
  int64_t lo, hi;

  /* Decode contexts on every other grid point above 16 (4 per octave): decode attention is
   * linear in the KV it reads, so the coarser grid costs nothing in accuracy and halves the
   * passes asked. */
  if (decode && i > 16 && i % 2)
    i--;
  lo = grid_value (s, i);
  hi = grid_value (s, decode && i >= 16 ? i + 2 : i + 1);
  pass_parts a, b;
  double w;

  memset (out, 0, sizeof *out);
  if (!pass_of (s, decode, batch, lo, &a, error))
    return FALSE;
  if ((double) lo == x || x < 1)
    {
      *out = a;
      return TRUE;
    }
  if (!pass_of (s, decode, batch, hi, &b, error))
    return FALSE;
  w = (x - (double) lo) / (double) (hi - lo);
  mix (out, &a, 1 - w);
  mix (out, &b, w);
  return TRUE;
}

/* Decode parts of n sequences at context k: bilinear on (n, k). */
static gboolean
decode_parts (msperf_serve_steps *s, int64_t n, double k, pass_parts *out, GError **error)
{
  int64_t i = grid_index (s, n);
  int64_t lo = grid_value (s, i), hi = grid_value (s, i + 1);
  pass_parts a, b;
  double w;

  if (!along (s, TRUE, lo, k, &a, error))
    return FALSE;
  if (lo == n)
    {
      *out = a;
      return TRUE;
    }
  if (!along (s, TRUE, hi, k, &b, error))
    return FALSE;
  w = (double) (n - lo) / (double) (hi - lo);
  memset (out, 0, sizeof *out);
  mix (out, &a, 1 - w);
  mix (out, &b, w);
  return TRUE;
}

gboolean
msperf_serve_step_latency (msperf_serve_steps *s, guint n_pre, const int64_t *chunk,
                           const int64_t *ctx, int64_t n_dec, double kv_sum, double *us,
                           double *data_us, GError **error)
{
  int64_t q = 1 + s->nextn, tokens = n_dec * q;
  double attn = 0, attn_data = 0, other, other_data;
  pass_parts p;

  for (guint i = 0; i < n_pre; i++)
    {
      double L = (double) (ctx[i] + chunk[i]), c = (double) chunk[i], share;

      tokens += chunk[i];
      if (!along (s, FALSE, 1, L, &p, error))
        return FALSE;
      share = c * (2.0 * (double) ctx[i] + c) / (L * L);
      attn += share * p.attn;
      attn_data += share * p.attn_data;
    }
  if (tokens == 0)
    {
      *us = *data_us = 0;
      return TRUE;
    }
  if (!along (s, FALSE, 1, (double) tokens, &p, error))
    return FALSE;
  other = p.other;
  other_data = p.other_data;
  if (n_dec > 0)
    {
      pass_parts d, a;

      /* The decode-shaped rest (LM head on every decode row, decode-only ops) replaces the
       * same tokens' prefill-shaped rest; attention at the mean context. */
      if (!decode_parts (s, n_dec, MAX (1.0, kv_sum / (double) n_dec), &d, error)
          || !along (s, FALSE, 1, (double) (n_dec * q), &a, error))
        return FALSE;
      other += MAX (0.0, d.other - a.other);
      other_data += MAX (0.0, d.other_data - a.other_data);
      attn += d.attn;
      attn_data += d.attn_data;
    }
  *us = (double) s->layout.pp * (other + attn);
  *data_us = (double) s->layout.pp * (other_data + attn_data);
  return TRUE;
}
