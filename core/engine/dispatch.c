/* msperf — the stage order of one query (ARCHITECTURE § The query pipeline): resolution in
 * the upstream precedence, the module's exact lookup, then the fallbacks down to the
 * roofline. Answers are cached per op signature, as upstream wraps every model in a result
 * cache (reference §2.1, quirk Q12). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "engine/engine_private.h"
#include <msperf/details.h>
#include "engine/composite.h"
#include "engine/interpolate.h"
#include "engine/confidence.h"
#include "engine/roofline.h"


static msperf_status
zero_cost (msperf_result *r, const msperf_mapping_entry *entry)
{
  gboolean accepted = !entry->zero_cost;

  msperf_result_set_method (r, accepted ? "accepted_miss" : "zero_cost");
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 0.0, 1.0,
                         accepted ? "accepted_miss" : (entry->kernel_type ? entry->kernel_type : ""),
                         accepted ? "accepted_miss" : "zero_cost");
  msperf_result_detail_bool (r, "zero_cost", TRUE);
  if (accepted)
    msperf_result_detail_string (r, "note", entry->accepted_miss);
  return MSPERF_HIT;
}

const char *
msperf_engine_resolve_mode (msperf_engine *e, const msperf_mapping_entry *entry,
                            gboolean *by_default)
{
  msperf_registry *reg;
  const char *mode;

  g_return_val_if_fail (e != NULL && entry != NULL, NULL);
  reg = e->m->registry;
  if (by_default)
    *by_default = FALSE;
  if (entry->category && (mode = msperf_registry_category_module (reg, entry->category)))
    return mode;
  if (entry->query_mode)
    return msperf_registry_canonical_mode (reg, entry->query_mode);
  if (entry->zero_cost || entry->accepted_miss)
    return NULL;
  if (by_default)
    *by_default = TRUE;
  return msperf_registry_default_mode (reg);
}

/* *entry_out and *mode_out receive the entry and the module that answered (NULL when the
 * core answered: unmapped, composite, zero_cost) for the interpolation stage. */
static msperf_status
exact_stage (msperf_engine *e, const msperf_op *op, msperf_result *r,
             const msperf_mapping_entry **entry_out, const char **mode_out)
{
  const msperf_mapping_entry *entry = msperf_database_entry (e->m->db, op->name);
  const char *mode;
  gboolean by_default;
  msperf_status status;

  *entry_out = entry;
  *mode_out = NULL;

  if (entry == NULL)
    {
      msperf_result_set_rule (r, "unmapped");
      return msperf_result_set_miss (r, "unmapped");
    }
  if (entry->composite)
    return msperf_composite_answer (e, op, entry, r);
  mode = msperf_engine_resolve_mode (e, entry, &by_default);
  if (mode == NULL && !by_default)
    return zero_cost (r, entry);
  if (by_default && entry->kernel_type == NULL)
    return msperf_result_set_miss (r, "no_kernel_type");
  if (mode == NULL)
    return msperf_result_set_miss (r, "no_default_module");
  *mode_out = mode;
  status = msperf_engine_lookup_as (e, mode, op, entry, r);
  /* "Not mine": the module's declared fallback answers (elementwise without an output tensor
   * answers through compute, reference §2.6 step 1). */
  while (status == MSPERF_FALLBACK)
    {
      const msperf_plugin *p = msperf_registry_lookup (e->m->registry, mode, NULL);

      msperf_result_reset (r);
      if (p == NULL || p->fallback_mode == NULL || strcmp (p->fallback_mode, mode) == 0)
        return msperf_result_set_miss (r, "fallback_unavailable:%s", mode);
      mode = *mode_out = p->fallback_mode;
      status = msperf_engine_lookup_as (e, mode, op, entry, r);
    }
  return status;
}

static void
roofline_stage (msperf_engine *e, const msperf_op *op, msperf_result *r)
{
  msperf_roofline rf;
  g_autofree char *reason = g_strdup (r->miss_reason);

  msperf_roofline_estimate_parallel (msperf_engine_device (e), &e->m->parallel, op, &rf);
  /* After a failed interpolation stage base_reason already holds the exact reason. */
  if (reason && msperf_value_lookup (msperf_result_details (r), "base_reason") == NULL)
    msperf_result_detail_string (r, "base_reason", reason);
  /* A roofline answer is a model, not data: the weakest source (confidence table "analytic"). */
  msperf_result_set_answer (r, MSPERF_SOURCE_ANALYTIC, rf.latency_us,
                            msperf_confidence_for (e, "analytic", 0, FALSE));
  msperf_result_set_method (r, "roofline");
  msperf_result_set_rule (r, "analytic");
  /* set_miss cleared nothing else; keep the reason for the record (a miss is still a miss). */
  if (reason)
    msperf_result_set_reason (r, "%s", reason);
  else
    msperf_result_set_reason (r, NULL);
  msperf_result_detail_string (r, "roofline_kind", rf.kind);
  msperf_result_detail_double (r, "roofline_flops", rf.flops);
  msperf_result_detail_double (r, "roofline_bytes", rf.bytes);
  /* Only the physical fallbacks (roofline.c) add keys: every other roofline answer stays as it was. */
  if (rf.degraded[0] != '\0')
    msperf_result_detail_string (r, "degraded", rf.degraded);
  if (rf.group_source != NULL)
    {
      msperf_result_detail_int (r, "group_size", rf.group_size);
      msperf_result_detail_string (r, "group_source", rf.group_source);
    }
  if (rf.collective_us > 0.0)
    msperf_result_detail_double (r, "collective_us", rf.collective_us);
}

/* An op the op summary itself flags `zero_cost: true` (TensorCast's metadata ops): answered as
 * a mapping's zero_cost entry is, whatever the database says. */
static void
flagged_zero_cost (msperf_result *r)
{
  msperf_result_set_method (r, "zero_cost");
  msperf_result_set_hit (r, MSPERF_SOURCE_MEASURED, 0.0, 1.0, "", "zero_cost");
  msperf_result_detail_bool (r, "zero_cost", TRUE);
  msperf_result_detail_string (r, "zero_cost_source", "op_summary");
}

/* The ATT module an op's `att.kind` selects (FORMATS §2; declared by the modules), or NULL. */
static const char *
att_mode (msperf_engine *e, const msperf_op *op)
{
  const char *kind = msperf_value_get_string (msperf_value_lookup (op->att, "kind"));

  return kind != NULL ? msperf_registry_att_module (e->m->registry, kind) : NULL;
}

/* Analytic model of an ATT module: its answer, even without a latency (no vector clock:
 * latency null, cycles in details, counted apart). Refused parameters make the answer
 * REJECTED with the module's message, as an invalid input line is. */
static gboolean
model_stage (msperf_engine *e, const char *mode, const msperf_op *op, msperf_result *r)
{
  void *state;
  const msperf_plugin *plugin = msperf_engine_module_or_miss (e, mode, &state, r);
  msperf_query q;
  msperf_status status;

  if (plugin == NULL)
    return FALSE;
  if (plugin->model == NULL)
    {
      msperf_result_set_miss (r, "module_no_model:%s", mode);
      return FALSE;
    }
  msperf_query_for_op (&q, e, op, NULL, mode, NULL);
  status = plugin->model (e, state, &q, r);
  if (status == MSPERF_ERROR)
    {
      msperf_result_set_rejected (r, "att_parameters_refused");
      return TRUE;
    }
  return status == MSPERF_HIT;
}

/* A database entry that answers the op zero_cost itself (resolution as exact_stage's): its
 * answer is kept as it was, the summary's flag adds nothing. */
static gboolean
mapped_zero_cost (msperf_engine *e, const msperf_op *op)
{
  const msperf_mapping_entry *entry = e->m->db ? msperf_database_entry (e->m->db, op->name) : NULL;
  gboolean by_default;

  return entry != NULL && !entry->composite && entry->zero_cost
         && msperf_engine_resolve_mode (e, entry, &by_default) == NULL && !by_default;
}

static msperf_result *
answer (msperf_engine *e, const msperf_op *op)
{
  msperf_result *r = msperf_result_new ();
  msperf_status status = MSPERF_MISS;
  const char *att = att_mode (e, op);

  if (op->zero_cost && !mapped_zero_cost (e, op))
    flagged_zero_cost (r);
  else if (att != NULL)
    {
      if (!model_stage (e, att, op, r))
        roofline_stage (e, op, r);
    }
  else if (e->m->db == NULL)
    {
      /* analytic-only run: the roofline is the requested model, not a fallback. */
      roofline_stage (e, op, r);
      g_clear_pointer (&r->miss_reason, g_free);
    }
  else
    {
      const msperf_mapping_entry *entry;
      const char *mode;

      status = exact_stage (e, op, r, &entry, &mode);
      /* Interpolation only after an exact miss or a PARTIAL answer (seed 000 §5.2). */
      if ((status == MSPERF_MISS
           || (status == MSPERF_HIT && r->source == MSPERF_SOURCE_PARTIAL))
          && msperf_interpolate_op (e, op, entry, mode, r))
        status = MSPERF_HIT;
      if (status != MSPERF_HIT)
        {
          if (r->miss_reason == NULL)
            msperf_result_set_miss (r, "unknown");
          roofline_stage (e, op, r);
        }
    }
  if (e->m->policy_hash)
    msperf_result_detail_string (r, "policy_hash", e->m->policy_hash);
  return r;
}

/* ------------------------------------------------------------------ the answer cache */

/* The cache key is a binary encoding of everything msperf_op_signature covers (name, args,
 * kwargs, outputs, att; never count, index or line): each value is a kind tag followed by its
 * payload, strings and lists carry their length, so the encoding is injective — equal bytes
 * mean structurally equal ops, which the signature also calls equal (it is at most finer: a
 * NaN payload, never coarser). Building it is a few memcpys into the engine's scratch buffer:
 * the printed signature was 14 % of an exact hit and the copy of the answer 22 %
 * (doc/performance.md, "query frame"). */
typedef struct {
  guint8 *data;
  size_t len;
  size_t cap;
} key_buf;

static void
key_put (key_buf *b, const void *p, size_t n)
{
  if (n > b->cap - b->len)
    {
      size_t cap = MAX (b->cap * 2, (size_t) 256);

      while (n > cap - b->len)
        cap *= 2;
      b->data = g_realloc (b->data, cap);
      b->cap = cap;
    }
  memcpy (b->data + b->len, p, n);
  b->len += n;
}

static void
key_tag (key_buf *b, char tag)
{
  key_put (b, &tag, 1);
}

static void
key_u64 (key_buf *b, uint64_t v)
{
  key_put (b, &v, sizeof v);
}

static void
key_string (key_buf *b, const char *s)
{
  size_t n = s ? strlen (s) : 0;

  key_u64 (b, s ? (uint64_t) n : UINT64_MAX);
  key_put (b, s, n);
}

static void
key_tensor (key_buf *b, const msperf_tensor *t)
{
  int32_t head[3] = { t->rank, (int32_t) t->dtype, (int32_t) t->format };
  size_t rank = t->rank > 0 ? MIN ((size_t) t->rank, (size_t) MSPERF_MAX_RANK) : 0;

  key_put (b, head, sizeof head);
  key_put (b, t->dims, rank * sizeof t->dims[0]);
  key_u64 (b, t->values ? t->n_values : 0);
  if (t->values)
    key_put (b, t->values, t->n_values * sizeof t->values[0]);
}

static void
key_value (key_buf *b, const msperf_value *v)
{
  if (v == NULL || v->kind == MSPERF_VALUE_NONE)
    {
      key_tag (b, 'N');
      return;
    }
  switch (v->kind)
    {
    case MSPERF_VALUE_BOOL:
      key_tag (b, v->b ? 'T' : 'F');
      break;
    case MSPERF_VALUE_INT:
      key_tag (b, 'I');
      key_u64 (b, (uint64_t) v->i);
      break;
    case MSPERF_VALUE_FLOAT:
      key_tag (b, 'D');
      key_put (b, &v->f, sizeof v->f);
      break;
    case MSPERF_VALUE_STRING:
      key_tag (b, 'S');
      key_string (b, v->s);
      break;
    case MSPERF_VALUE_TENSOR:
      key_tag (b, 't');
      key_tensor (b, &v->tensor);
      break;
    case MSPERF_VALUE_LIST:
    case MSPERF_VALUE_MAP:
      key_tag (b, v->kind == MSPERF_VALUE_LIST ? 'L' : 'M');
      key_u64 (b, v->items->len);
      for (guint k = 0; k < v->items->len; k++)
        {
          if (v->kind == MSPERF_VALUE_MAP)
            key_string (b, g_ptr_array_index (v->keys, k));
          key_value (b, g_ptr_array_index (v->items, k));
        }
      break;
    case MSPERF_VALUE_NONE:
    default:
      key_tag (b, 'N');
      break;
    }
}

static void
key_op (key_buf *b, const msperf_op *op)
{
  b->len = 0;
  key_string (b, op->name);
  key_u64 (b, op->args->len);
  for (guint k = 0; k < op->args->len; k++)
    key_value (b, g_ptr_array_index (op->args, k));
  key_value (b, op->kwargs);
  key_u64 (b, op->out->len);
  for (guint k = 0; k < op->out->len; k++)
    key_tensor (b, g_ptr_array_index (op->out, k));
  key_value (b, op->att);
  /* Appended only when set: every other key keeps its bytes. */
  if (op->zero_cost)
    key_tag (b, 'Z');
}

/* 64-bit words mixed with murmur3's finaliser constants: dims differ in their high bits as
 * often as in their low ones (core/table.c's slot-list hash had the same need). */
static guint
key_hash_bytes (const guint8 *p, size_t n)
{
  uint64_t h = 0x9e3779b97f4a7c15u ^ n;
  size_t k = 0;

  for (; k + 8 <= n; k += 8)
    {
      uint64_t w;

      memcpy (&w, p + k, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdu;
      h ^= h >> 32;
    }
  if (k < n)
    {
      uint64_t w = 0;

      memcpy (&w, p + k, n - k);
      h = (h ^ w) * 0xff51afd7ed558ccdu;
    }
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53u;
  h ^= h >> 33;
  return (guint) h;
}

/* A cache key: stored ones own their bytes in the same block (an LRU node); the lookup key
 * points into the engine's scratch buffer. */
typedef struct {
  guint hash;
  size_t len;
  const guint8 *bytes;
} answer_key;

/* ------------------------------------------------------------------ the LRU */

/* Why an LRU: a long trace has hundreds of thousands of distinct ops and an interpolated
 * answer is kilobytes, so an unbounded cache grows with the trace; repeats of a model trace
 * are near each other (layers, steps), so the recently used answers are the ones asked
 * again. Answers are a pure function of the op: an evicted one is recomputed bit for bit. */
#define ANSWERS_DEFAULT_CAPACITY 4096

typedef struct answer_node answer_node;
struct answer_node {
  answer_key key;              /* first: the hash table's key is the node */
  msperf_result *result;       /* one reference */
  answer_node *newer, *older;
};

struct msperf_answer_cache {
  GHashTable *index;           /* answer_node* (as its key) → the same node */
  answer_node *newest, *oldest;
  guint capacity;              /* 0 until the first insertion reads the policy */
};

static guint
answer_key_hash (gconstpointer p)
{
  return ((const answer_key *) p)->hash;
}

static gboolean
answer_key_equal (gconstpointer a, gconstpointer b)
{
  const answer_key *x = a, *y = b;

  return x->hash == y->hash && x->len == y->len && memcmp (x->bytes, y->bytes, x->len) == 0;
}

static void
answer_node_free (answer_node *n)
{
  msperf_result_unref (n->result);
  g_free (n);
}

msperf_answer_cache *
msperf_dispatch_answers_new (void)
{
  msperf_answer_cache *c = g_new0 (msperf_answer_cache, 1);

  c->index = g_hash_table_new_full (answer_key_hash, answer_key_equal, NULL,
                                    (GDestroyNotify) answer_node_free);
  return c;
}

void
msperf_dispatch_answers_clear (msperf_answer_cache *c)
{
  g_return_if_fail (c != NULL);
  g_hash_table_remove_all (c->index);
  c->newest = c->oldest = NULL;
}

void
msperf_dispatch_answers_free (msperf_answer_cache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->index);
  g_free (c);
}

guint
msperf_dispatch_answers_size (const msperf_answer_cache *c)
{
  g_return_val_if_fail (c != NULL, 0);
  return g_hash_table_size (c->index);
}

static void
lru_unlink (msperf_answer_cache *c, answer_node *n)
{
  if (n->newer)
    n->newer->older = n->older;
  else
    c->newest = n->older;
  if (n->older)
    n->older->newer = n->newer;
  else
    c->oldest = n->newer;
  n->newer = n->older = NULL;
}

static void
lru_push_newest (msperf_answer_cache *c, answer_node *n)
{
  n->older = c->newest;
  n->newer = NULL;
  if (c->newest)
    c->newest->newer = n;
  c->newest = n;
  if (c->oldest == NULL)
    c->oldest = n;
}

guint
msperf_dispatch_answers_capacity (msperf_engine *e)
{
  int64_t v = 0;

  g_return_val_if_fail (e != NULL, 0);
  if (e->answers->capacity == 0)
    {
      /* cache.answers (optional, absent = the built-in constant; not in the policy hash). */
      if (e->m->policy == NULL
          || !msperf_value_get_int (msperf_policy_get (e->m->policy, "cache.answers"), &v)
          || v < 1)
        v = ANSWERS_DEFAULT_CAPACITY;
      e->answers->capacity = (guint) MIN (v, (int64_t) G_MAXUINT);
    }
  return e->answers->capacity;
}

/* The cached answer of key (now the most recently used), or NULL. Transfer none. */
static msperf_result *
lru_lookup (msperf_answer_cache *c, const answer_key *key)
{
  answer_node *n = g_hash_table_lookup (c->index, key);

  if (n == NULL)
    return NULL;
  if (n != c->newest)
    {
      lru_unlink (c, n);
      lru_push_newest (c, n);
    }
  return n->result;
}

/* Stores a reference to r under a copy of key, evicting the least recently used answers
 * beyond the capacity. */
static void
lru_insert (msperf_engine *e, const answer_key *key, msperf_result *r)
{
  msperf_answer_cache *c = e->answers;
  guint capacity = msperf_dispatch_answers_capacity (e);
  answer_node *n = g_malloc (sizeof *n + key->len);

  n->key = *key;
  n->key.bytes = memcpy (n + 1, key->bytes, key->len);
  n->result = msperf_result_ref (r);
  while (g_hash_table_size (c->index) >= capacity && c->oldest)
    {
      answer_node *old = c->oldest;

      lru_unlink (c, old);
      g_hash_table_remove (c->index, &old->key);
    }
  lru_push_newest (c, n);
  g_hash_table_insert (c->index, &n->key, n);
}

gboolean
msperf_dispatch_answers_has (msperf_engine *e, const msperf_op *op)
{
  key_buf b = { e->key_scratch, 0, e->key_scratch_cap };
  answer_key key;

  g_return_val_if_fail (e != NULL && op != NULL, FALSE);
  key_op (&b, op);
  e->key_scratch = b.data;
  e->key_scratch_cap = b.cap;
  key = (answer_key){ key_hash_bytes (b.data, b.len), b.len, b.data };
  return g_hash_table_contains (e->answers->index, &key);
}

void
msperf_dispatch_scratch_free (msperf_engine *e)
{
  g_clear_pointer (&e->key_scratch, g_free);
  e->key_scratch_cap = 0;
}

msperf_result *
msperf_dispatch_query (msperf_engine *e, const msperf_op *op)
{
  key_buf b = { e->key_scratch, 0, e->key_scratch_cap };
  answer_key key;
  msperf_result *r;

  key_op (&b, op);
  e->key_scratch = b.data;
  e->key_scratch_cap = b.cap;
  key.len = b.len;
  key.bytes = b.data;
  key.hash = key_hash_bytes (b.data, b.len);
  r = lru_lookup (e->answers, &key);
  /* The cache and the caller share one immutable answer (result.h). */
  if (r)
    return msperf_result_ref (r);
  r = answer (e, op);
  lru_insert (e, &key, r);
  return r;
}
