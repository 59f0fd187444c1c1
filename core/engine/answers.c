/* msperf — the answer cache of one engine handle: the binary key an op is cached under
 * (everything its signature covers) and the LRU of answers under it. Answers are cached per op
 * signature, as upstream wraps every model in a result cache (reference §2.1, quirk Q12). */
#include <config.h>
#include <string.h>
#include "engine/shared.h"
#include "engine/answers.h"

/* ------------------------------------------------------------------ the key */

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

/* ------------------------------------------------------------------ the LRU */

/* Why an LRU: a long trace has hundreds of thousands of distinct ops and an interpolated
 * answer is kilobytes, so an unbounded cache grows with the trace; repeats of a model trace
 * are near each other (layers, steps), so the recently used answers are the ones asked
 * again. Answers are a pure function of the op: an evicted one is recomputed bit for bit. */
#define ANSWERS_DEFAULT_CAPACITY 4096

typedef struct answer_node answer_node;
struct answer_node {
  msperf_answer_key key;       /* first: the hash table's key is the node */
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
  return ((const msperf_answer_key *) p)->hash;
}

static gboolean
answer_key_equal (gconstpointer a, gconstpointer b)
{
  const msperf_answer_key *x = a, *y = b;

  return x->hash == y->hash && x->len == y->len && memcmp (x->bytes, y->bytes, x->len) == 0;
}

static void
answer_node_free (answer_node *n)
{
  msperf_result_unref (n->result);
  g_free (n);
}

msperf_answer_cache *
msperf_answers_new (void)
{
  msperf_answer_cache *c = g_new0 (msperf_answer_cache, 1);

  c->index = g_hash_table_new_full (answer_key_hash, answer_key_equal, NULL,
                                    (GDestroyNotify) answer_node_free);
  return c;
}

void
msperf_answers_clear (msperf_answer_cache *c)
{
  g_return_if_fail (c != NULL);
  g_hash_table_remove_all (c->index);
  c->newest = c->oldest = NULL;
}

void
msperf_answers_free (msperf_answer_cache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->index);
  g_free (c);
}

guint
msperf_answers_size (const msperf_answer_cache *c)
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
msperf_answers_capacity (msperf_engine *e)
{
  int64_t v = 0;

  g_return_val_if_fail (e != NULL, 0);
  if (e->answers->capacity == 0)
    {
      /* cache.answers (optional, absent = the built-in constant; not in the policy hash). */
      if (e->shared->policy == NULL
          || !msperf_value_get_int (msperf_policy_get (e->shared->policy, "cache.answers"), &v)
          || v < 1)
        v = ANSWERS_DEFAULT_CAPACITY;
      e->answers->capacity = (guint) MIN (v, (int64_t) G_MAXUINT);
    }
  return e->answers->capacity;
}

static msperf_result *
lru_lookup (msperf_answer_cache *c, const msperf_answer_key *key)
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

void
msperf_answers_insert (msperf_engine *e, const msperf_answer_key *key, msperf_result *r)
{
  msperf_answer_cache *c = e->answers;
  guint capacity = msperf_answers_capacity (e);
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
msperf_answers_has (msperf_engine *e, const msperf_op *op)
{
  key_buf b = { e->key_scratch, 0, e->key_scratch_cap };
  msperf_answer_key key;

  g_return_val_if_fail (e != NULL && op != NULL, FALSE);
  key_op (&b, op);
  e->key_scratch = b.data;
  e->key_scratch_cap = b.cap;
  key = (msperf_answer_key){ key_hash_bytes (b.data, b.len), b.len, b.data };
  return g_hash_table_contains (e->answers->index, &key);
}

void
msperf_answers_scratch_free (msperf_engine *e)
{
  g_clear_pointer (&e->key_scratch, g_free);
  e->key_scratch_cap = 0;
}

msperf_result *
msperf_answers_lookup (msperf_engine *e, const msperf_op *op, msperf_answer_key *key)
{
  key_buf b = { e->key_scratch, 0, e->key_scratch_cap };
  msperf_result *r;

  key_op (&b, op);
  e->key_scratch = b.data;
  e->key_scratch_cap = b.cap;
  key->len = b.len;
  key->bytes = b.data;
  key->hash = key_hash_bytes (b.data, b.len);
  r = lru_lookup (e->answers, key);
  /* The cache and the caller share one immutable answer (result.h). */
  return r ? msperf_result_ref (r) : NULL;
}
