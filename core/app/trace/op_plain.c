/* msperf — the op of a plain trace line, straight from its text (app/trace/op_plain.h).
 *
 * The rules are trace.c's (FORMATS §2): in args and kwargs an object with "shape" is a tensor
 * {shape, dtype, format, stride, values}, any other object a map; in att every object is a map;
 * kwargs itself is a map even with a "shape" key; out is a tensor or a list of tensors. Only the
 * lines those rules accept without a word are taken here: wherever the full path would report,
 * warn or need json-glib's own conversions, this declines and the full path reads the line.
 * tests/app/test_op_plain.c holds the two paths to the same op on every line of a corpus. */
#include <config.h>
#include <string.h>
#include <msperf/op.h>
#include <msperf/shape.h>
#include "app/trace/op_plain.h"
#include "app/trace/json_lex.h"

/* Objects nest less deeply than the lexical limit here: each level keeps its members on the
 * stack, and trace lines are shallow. */
#define PLAIN_MAX_DEPTH 16

typedef struct {
  msperf_json_cursor c;
  gint64 ints[MSPERF_OP_PLAIN_MAX_INTS]; /* the tensors' integer lists, in text order */
  gsize n_ints;
} plain_ctx;

/* A member of an object being read. A tensor's lists and strings are kept as spans (of ints or
 * of the text) until the object's end tells whether it is a tensor: most objects are, and then
 * they never become values. */
typedef enum { MEMBER_VALUE, MEMBER_INTS, MEMBER_STRING } member_kind;

typedef struct {
  const char *key;
  gsize key_len;
  member_kind kind;
  msperf_value *value;   /* MEMBER_VALUE, owned */
  gsize first, n;        /* MEMBER_INTS: ints[first, first + n); MEMBER_STRING: text span */
  const char *s;
} member;

typedef struct {
  member m[MSPERF_OP_PLAIN_MAX_MEMBERS];
  guint n;
} members;

static msperf_value *plain_value (plain_ctx *x, gboolean tensors);

static void
members_clear (members *ms)
{
  for (guint k = 0; k < ms->n; k++)
    msperf_value_free (ms->m[k].value);
  ms->n = 0;
}

/* The member named key, or NULL. */
static const member *
members_find (const members *ms, const char *key)
{
  for (guint k = 0; k < ms->n; k++)
    if (msperf_json_key_is (ms->m[k].key, ms->m[k].key_len, key))
      return &ms->m[k];
  return NULL;
}

/* A list of integers at c->p ('[') into the ints pool. FALSE when an item is anything else or
 * the pool is full. */
static gboolean
read_ints (plain_ctx *x, member *m)
{
  gboolean more;

  if (!msperf_json_open (&x->c, ']', &more))
    return FALSE;
  m->kind = MEMBER_INTS;
  m->first = x->n_ints;
  m->n = 0;
  while (more)
    {
      if (x->n_ints == MSPERF_OP_PLAIN_MAX_INTS || !msperf_json_int (&x->c, &x->ints[x->n_ints])
          || !msperf_json_next (&x->c, ']', &more))
        return FALSE;
      x->n_ints++;
      m->n++;
    }
  x->c.depth--;
  return TRUE;
}

/* The value of member m (its key read). In a tensor context the keys a tensor reads keep their
 * lists and strings as spans. */
static gboolean
read_member_value (plain_ctx *x, gboolean tensors, member *m)
{
  if (tensors && msperf_json_at (&x->c, '[')
      && (msperf_json_key_is (m->key, m->key_len, "shape")
          || msperf_json_key_is (m->key, m->key_len, "stride")
          || msperf_json_key_is (m->key, m->key_len, "values")))
    return read_ints (x, m);
  if (tensors && msperf_json_at (&x->c, '"')
      && (msperf_json_key_is (m->key, m->key_len, "dtype")
          || msperf_json_key_is (m->key, m->key_len, "format")))
    {
      m->kind = MEMBER_STRING;
      return msperf_json_string (&x->c, &m->s, &m->n);
    }
  m->kind = MEMBER_VALUE;
  return (m->value = plain_value (x, tensors)) != NULL;
}

/* The members of the object at c->p ('{'). FALSE for a key twice or too many members; what was
 * read is left in ms for members_clear. */
static gboolean
read_members (plain_ctx *x, gboolean tensors, members *ms)
{
  gboolean more;

  ms->n = 0;
  if (x->c.depth >= PLAIN_MAX_DEPTH || !msperf_json_open (&x->c, '}', &more))
    return FALSE;
  while (more)
    {
      member *m = &ms->m[ms->n];
      const char *key;
      gsize len;

      if (ms->n == MSPERF_OP_PLAIN_MAX_MEMBERS || !msperf_json_key (&x->c, &key, &len))
        return FALSE;
      for (guint k = 0; k < ms->n; k++)
        if (ms->m[k].key_len == len && memcmp (ms->m[k].key, key, len) == 0)
          return FALSE;
      memset (m, 0, sizeof *m);
      m->key = key;
      m->key_len = len;
      ms->n++;
      if (!read_member_value (x, tensors, m) || !msperf_json_next (&x->c, '}', &more))
        return FALSE;
    }
  x->c.depth--;
  return TRUE;
}

/* A member absent or null (the full path skips those). */
static gboolean
absent (const member *m)
{
  return m == NULL || (m->kind == MEMBER_VALUE && m->value->kind == MSPERF_VALUE_NONE);
}

/* The C string of a MEMBER_STRING, in the cursor's scratch (NULL: too long, declined). */
static const char *
member_cstr (plain_ctx *x, const member *m)
{
  return m->n < sizeof x->c.scratch ? msperf_json_cstr (&x->c, m->s, m->n, NULL) : NULL;
}

/* t from members that hold "shape", as trace.c's tensor_from_object makes it; FALSE wherever
 * that would report an error. */
static gboolean
members_to_tensor (plain_ctx *x, const members *ms, msperf_tensor *t)
{
  const member *shape = members_find (ms, "shape"), *dtype = members_find (ms, "dtype");
  const member *format = members_find (ms, "format"), *stride = members_find (ms, "stride");
  const member *values = members_find (ms, "values");
  const char *name;
  int64_t numel = 1;

  memset (t, 0, sizeof *t);
  if (shape->kind != MEMBER_INTS || shape->n > MSPERF_MAX_RANK || dtype == NULL
      || dtype->kind != MEMBER_STRING || (name = member_cstr (x, dtype)) == NULL)
    return FALSE;
  for (gsize k = 0; k < shape->n; k++)
    {
      int64_t d = x->ints[shape->first + k];

      if (d < 0 || !msperf_int64_checked_mul (numel, d, &numel))
        return FALSE;
      t->dims[k] = d;
    }
  t->rank = (int) shape->n;
  if ((t->dtype = msperf_dtype_from_string (name)) == MSPERF_DTYPE_UNKNOWN)
    return FALSE;
  t->format = MSPERF_FORMAT_ND;
  if (!absent (format))
    {
      if (format->kind != MEMBER_STRING || (name = member_cstr (x, format)) == NULL)
        return FALSE;
      t->format = msperf_format_from_string (name);
    }
  if (!absent (stride) && (stride->kind != MEMBER_INTS || stride->n != shape->n))
    return FALSE;
  if (!absent (values))
    {
      if (values->kind != MEMBER_INTS || (int64_t) values->n != numel)
        return FALSE;
      t->values = values->n ? g_memdup2 (&x->ints[values->first], values->n * sizeof (gint64))
                            : NULL;
      t->n_values = values->n;
    }
  return TRUE;
}

/* The member's value, made a value if it was kept as a span (transfer full; the member's own
 * value is taken). */
static msperf_value *
member_take_value (plain_ctx *x, member *m)
{
  msperf_value *v;

  switch (m->kind)
    {
    case MEMBER_INTS:
      v = msperf_value_new (MSPERF_VALUE_LIST);
      for (gsize k = 0; k < m->n; k++)
        msperf_value_list_append (v, msperf_value_new_int (x->ints[m->first + k]));
      return v;
    case MEMBER_STRING:
      return msperf_value_new_string (member_cstr (x, m));
    case MEMBER_VALUE:
    default:
      v = m->value;
      m->value = NULL;
      return v;
    }
}

/* A MAP of the members, in text order. NULL when a kept string is too long for the scratch. */
static msperf_value *
members_to_map (plain_ctx *x, members *ms)
{
  g_autoptr (msperf_value) map = msperf_value_new (MSPERF_VALUE_MAP);
  char key[sizeof x->c.scratch];

  for (guint k = 0; k < ms->n; k++)
    {
      member *m = &ms->m[k];
      msperf_value *v;

      if (m->key_len >= sizeof key
          || (m->kind == MEMBER_STRING && m->n >= sizeof x->c.scratch))
        return NULL;
      memcpy (key, m->key, m->key_len);
      key[m->key_len] = '\0';
      v = member_take_value (x, m);
      msperf_value_map_set (map, key, v);
    }
  return g_steal_pointer (&map);
}

/* The object at c->p: a tensor when tensors and it has "shape" (unless as_map), else a map. */
static msperf_value *
plain_object (plain_ctx *x, gboolean tensors, gboolean as_map)
{
  members ms;
  msperf_value *v = NULL;

  if (!read_members (x, tensors, &ms))
    goto done;
  if (tensors && !as_map && members_find (&ms, "shape"))
    {
      v = msperf_value_new (MSPERF_VALUE_TENSOR);
      if (!members_to_tensor (x, &ms, &v->tensor))
        g_clear_pointer (&v, msperf_value_free);
    }
  else
    v = members_to_map (x, &ms);
done:
  members_clear (&ms);
  return v;
}

static msperf_value *
plain_list (plain_ctx *x, gboolean tensors)
{
  g_autoptr (msperf_value) v = msperf_value_new (MSPERF_VALUE_LIST);
  gboolean more;

  if (x->c.depth >= PLAIN_MAX_DEPTH || !msperf_json_open (&x->c, ']', &more))
    return NULL;
  while (more)
    {
      msperf_value *item = plain_value (x, tensors);

      if (item == NULL)
        return NULL;
      msperf_value_list_append (v, item);
      if (!msperf_json_next (&x->c, ']', &more))
        return NULL;
    }
  x->c.depth--;
  return g_steal_pointer (&v);
}

static msperf_value *
plain_string (plain_ctx *x)
{
  const char *s;
  gsize len;

  if (!msperf_json_string (&x->c, &s, &len) || len >= sizeof x->c.scratch)
    return NULL;
  return msperf_value_new_string (msperf_json_cstr (&x->c, s, len, NULL));
}

/* The value at c->p, or NULL (declined). */
static msperf_value *
plain_value (plain_ctx *x, gboolean tensors)
{
  gint64 i;

  if (x->c.p >= x->c.end)
    return NULL;
  switch (*x->c.p)
    {
    case '{':
      return plain_object (x, tensors, FALSE);
    case '[':
      return plain_list (x, tensors);
    case '"':
      return plain_string (x);
    case 't':
      return msperf_json_word (&x->c, "true") ? msperf_value_new_bool (TRUE) : NULL;
    case 'f':
      return msperf_json_word (&x->c, "false") ? msperf_value_new_bool (FALSE) : NULL;
    case 'n':
      return msperf_json_word (&x->c, "null") ? msperf_value_new (MSPERF_VALUE_NONE) : NULL;
    default:
      return msperf_json_int (&x->c, &i) ? msperf_value_new_int (i) : NULL;
    }
}

/* ------------------------------------------------------------------ the line's keys */

/* An output tensor at c->p ('{') into op->out. */
static gboolean
out_tensor (plain_ctx *x, msperf_op *op)
{
  members ms = { .n = 0 };
  gboolean ok = FALSE;

  if (msperf_json_at (&x->c, '{') && read_members (x, TRUE, &ms) && members_find (&ms, "shape"))
    {
      msperf_tensor *t = g_new0 (msperf_tensor, 1);

      g_ptr_array_add (op->out, t);  /* op->out frees it, also on failure */
      ok = members_to_tensor (x, &ms, t);
    }
  members_clear (&ms);
  return ok;
}

static gboolean
read_out (plain_ctx *x, msperf_op *op)
{
  gboolean more;

  if (!msperf_json_at (&x->c, '['))
    return out_tensor (x, op);
  if (!msperf_json_open (&x->c, ']', &more))
    return FALSE;
  while (more)
    if (!out_tensor (x, op) || !msperf_json_next (&x->c, ']', &more))
      return FALSE;
  x->c.depth--;
  return TRUE;
}

/* null at c->p (moved past it): the key is as good as absent. */
static gboolean
null_at (plain_ctx *x)
{
  return msperf_json_at (&x->c, 'n') && msperf_json_word (&x->c, "null");
}

/* The value of top-level key[0..len) into op (its name set already or later). *seen holds the
 * keys read so far, one bit each. */
static gboolean
read_top (plain_ctx *x, const char *key, gsize len, msperf_op *op, const char **name,
          gsize *name_len, guint *seen)
{
  static const char *const keys[] = { "op", "args", "kwargs", "out", "count", "att" };
  guint k = 0;
  msperf_value *v;

  while (k < G_N_ELEMENTS (keys) && !msperf_json_key_is (key, len, keys[k]))
    k++;
  if (k == G_N_ELEMENTS (keys) || (*seen & (1u << k)))
    return FALSE;  /* an unknown key is the full path's to warn about */
  *seen |= 1u << k;
  switch (k)
    {
    case 0:
      return msperf_json_at (&x->c, '"') && msperf_json_string (&x->c, name, name_len);
    case 1:
      if (null_at (x))
        return TRUE;
      if (!msperf_json_at (&x->c, '[') || (v = plain_list (x, TRUE)) == NULL)
        return FALSE;
      g_ptr_array_extend_and_steal (op->args, g_steal_pointer (&v->items));  /* frees it */
      msperf_value_free (v);
      return TRUE;
    case 2:
      if (null_at (x))
        return TRUE;
      if (!msperf_json_at (&x->c, '{') || (v = plain_object (x, TRUE, TRUE)) == NULL)
        return FALSE;
      msperf_value_free (op->kwargs);
      op->kwargs = v;
      return TRUE;
    case 3:
      return null_at (x) || read_out (x, op);
    case 4:
      return msperf_json_int (&x->c, &op->count) && op->count >= 1;
    case 5:
    default:
      if (null_at (x))
        return TRUE;
      return msperf_json_at (&x->c, '{') && (op->att = plain_object (x, FALSE, TRUE)) != NULL;
    }
}

msperf_op *
msperf_op_plain_parse (const char *text, gsize len)
{
  plain_ctx ctx, *x = &ctx;
  g_autoptr (msperf_op) op = msperf_op_new (NULL);
  const char *name = NULL, *key;
  gsize name_len = 0, key_len;
  guint seen = 0;
  gboolean more;
  g_autofree char *cname = NULL;

  g_return_val_if_fail (text != NULL || len == 0, NULL);

  x->n_ints = 0;
  msperf_json_cursor_init (&x->c, text, len);
  msperf_json_skip_ws (&x->c);
  if (!msperf_json_at (&x->c, '{') || !msperf_json_open (&x->c, '}', &more))
    return NULL;
  while (more)
    if (!msperf_json_key (&x->c, &key, &key_len)
        || !read_top (x, key, key_len, op, &name, &name_len, &seen)
        || !msperf_json_next (&x->c, '}', &more))
      return NULL;
  msperf_json_skip_ws (&x->c);
  if (x->c.p != x->c.end || name == NULL)
    return NULL;
  cname = g_strndup (name, name_len);
  msperf_op_set_name (op, cname);
  return op->name[0] ? g_steal_pointer (&op) : NULL;  /* an empty op is the full path's error */
}
