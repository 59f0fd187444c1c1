/* msperf (internal) — a small YAML document tree for the model templates (policies/models/).
 * The engine's YAML reader is private to libmsperf; the app layer reads its own files. */
#ifndef MSPERF_APP_MODEL_YAML_H
#define MSPERF_APP_MODEL_YAML_H

#include <glib.h>

typedef enum { MSPERF_YNODE_SCALAR, MSPERF_YNODE_SEQ, MSPERF_YNODE_MAP } msperf_ynode_kind;

typedef struct msperf_ynode msperf_ynode;
struct msperf_ynode {
  msperf_ynode_kind kind;
  char *text;            /* SCALAR: the value; MAP/SEQ: NULL */
  gboolean plain;        /* SCALAR written without quotes (so `null` means None) */
  guint line;            /* 1-based line of the node's start */
  GPtrArray *items;      /* SEQ: values; MAP: key, value, key, value… (msperf_ynode*) */
};

/* Parses one document; aliases and anchors are refused (templates are meant to read plainly).
 * Transfer full. */
msperf_ynode *msperf_ynode_load (const char *path, GError **error);
void msperf_ynode_free (msperf_ynode *node);
/* The value of key in a MAP, or NULL. */
const msperf_ynode *msperf_ynode_get (const msperf_ynode *map, const char *key);
/* Number of entries: SEQ items, MAP pairs. */
guint msperf_ynode_len (const msperf_ynode *node);
const msperf_ynode *msperf_ynode_item (const msperf_ynode *seq, guint i);
const msperf_ynode *msperf_ynode_key (const msperf_ynode *map, guint i);
const msperf_ynode *msperf_ynode_value (const msperf_ynode *map, guint i);
gboolean msperf_ynode_is_null (const msperf_ynode *node);

#endif
