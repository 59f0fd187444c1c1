/* msperf — module discovery and loading through libltdl.
 *
 * Every candidate file gets one msperf_plugin_info, whatever happens to it, so that
 * `msperf plugins list` can explain each file it saw. A problem with one module is a warning
 * line and a REJECTED info, never a failure of the run: the other modules still load. */
#define G_LOG_DOMAIN "msperf"
/* lstat, access and realpath are POSIX, hidden by -std=c11. */
#define _XOPEN_SOURCE 700

#include <config.h>
#include <msperf/format.h>

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pthread.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <ltdl.h>

#include "engine/registry.h"
#include <msperf/paths.h>

#define MODULE_PREFIX "msperf_"

/* libltdl 2.4.7 keeps global state (its handle list, the error string, the init count) with
 * no locking of its own: every use of it goes through this lock, so engines may be started
 * and freed on several threads at once. The one piece of process-wide state msperf has. */
static pthread_mutex_t ltdl_lock = PTHREAD_MUTEX_INITIALIZER;

/* A module that passed every check and whose init succeeded. */
typedef struct module {
  lt_dlhandle handle;
  const msperf_plugin *plugin;
  void *state;
} module;

/* Who claimed a mode name first: later files of that name are duplicates or shadowed. */
typedef struct claim {
  char *dir;
  char *file;
} claim;

struct msperf_registry {
  gboolean ltdl_ready;
  GPtrArray *modules;     /* module*, load order */
  GHashTable *by_name;    /* mode name -> module* (borrowed from modules) */
  GHashTable *by_op;      /* decomposed op name -> module* (borrowed) */
  GHashTable *claims;     /* mode name -> claim* */
  GHashTable *dirs_seen;  /* canonical dir -> NULL: a dir listed twice is scanned once */
  GPtrArray *infos;       /* msperf_plugin_info*, discovery order */
  /* Routing declared by the descriptors of loaded AND policy-disabled modules (so that a
   * disabled module's ops still say module_disabled:<name>); values are module names. */
  GHashTable *by_att_kind;  /* att.kind -> name */
  GHashTable *by_alias;     /* query_mode alias -> name */
  GHashTable *by_category;  /* mapping category -> name */
  char *default_mode;       /* the first DEFAULT_MODE module, or NULL */
  char *static_composite;   /* the first STATIC_COMPOSITE module, or NULL */
  GHashTable *options;      /* name -> const msperf_option_spec* (loaded modules) */
  /* Declarations of loaded and policy-disabled modules, copied (a disabled module is
   * closed), in discovery order. */
  GPtrArray *interpolated;  /* char*: names of MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT modules */
  GPtrArray *schemas;       /* char*: module name, then its policy_schema, pairwise */
  GPtrArray *prefixes;      /* char*: collective kernel prefixes, NULL-terminated */
};

const char *
msperf_plugin_status_name (msperf_plugin_status status)
{
  switch (status)
    {
    case MSPERF_PLUGIN_LOADED:
      return "loaded";
    case MSPERF_PLUGIN_DISABLED:
      return "disabled";
    case MSPERF_PLUGIN_SKIPPED:
      return "skipped";
    case MSPERF_PLUGIN_REJECTED:
      return "rejected";
    default:
      return "unknown";
    }
}

static void
info_free (gpointer data)
{
  msperf_plugin_info *info = data;

  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info->version);
  g_free (info->description);
  g_free (info->file);
  g_free (info->capabilities);
  g_free (info->reason);
  g_free (info);
}

static void
claim_free (gpointer data)
{
  claim *c = data;

  g_free (c->dir);
  g_free (c->file);
  g_free (c);
}

msperf_registry *
msperf_registry_new (void)
{
  msperf_registry *reg = g_new0 (msperf_registry, 1);

  /* lt_dlinit is reference counted by libltdl, so each registry may own one reference. */
  pthread_mutex_lock (&ltdl_lock);
  reg->ltdl_ready = lt_dlinit () == 0;
  if (!reg->ltdl_ready)
    g_warning ("cannot initialise libltdl: %s: no module will load", lt_dlerror ());
  pthread_mutex_unlock (&ltdl_lock);
  reg->modules = g_ptr_array_new ();
  reg->by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  reg->by_op = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  reg->claims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, claim_free);
  reg->dirs_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  reg->infos = g_ptr_array_new_with_free_func (info_free);
  reg->by_att_kind = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  reg->by_alias = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  reg->by_category = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  reg->interpolated = g_ptr_array_new_with_free_func (g_free);
  reg->schemas = g_ptr_array_new_with_free_func (g_free);
  reg->prefixes = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (reg->prefixes, NULL);
  return reg;
}

void
msperf_registry_free (msperf_registry *reg)
{
  if (reg == NULL)
    return;
  pthread_mutex_lock (&ltdl_lock);
  /* Reverse load order, and fini before close: a state may point into its module's code. */
  for (guint i = reg->modules->len; i > 0; i--)
    {
      module *m = g_ptr_array_index (reg->modules, i - 1);

      if (m->plugin->fini != NULL)
        m->plugin->fini (m->state);
      lt_dlclose (m->handle);
      g_free (m);
    }
  g_ptr_array_unref (reg->modules);
  g_hash_table_unref (reg->by_name);
  g_hash_table_unref (reg->by_op);
  g_hash_table_unref (reg->claims);
  g_hash_table_unref (reg->dirs_seen);
  g_ptr_array_unref (reg->infos);
  g_hash_table_unref (reg->by_att_kind);
  g_hash_table_unref (reg->by_alias);
  g_hash_table_unref (reg->by_category);
  g_ptr_array_unref (reg->interpolated);
  g_ptr_array_unref (reg->schemas);
  g_ptr_array_unref (reg->prefixes);
  g_free (reg->default_mode);
  g_free (reg->static_composite);
  if (reg->ltdl_ready)
    lt_dlexit ();
  pthread_mutex_unlock (&ltdl_lock);
  g_free (reg);
}

/* Appends the ':'-separated entries of value, ignoring empty ones. */
static void
append_path_list (GPtrArray *dirs, const char *value)
{
  g_auto (GStrv) parts = NULL;

  if (value == NULL)
    return;
  parts = g_strsplit (value, G_SEARCHPATH_SEPARATOR_S, -1);
  for (char **p = parts; *p != NULL; p++)
    if (**p != '\0')
      g_ptr_array_add (dirs, g_strdup (*p));
}

GPtrArray *
msperf_registry_search_path (const char *const *cli_dirs, gboolean use_defaults)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);

  for (const char *const *d = cli_dirs; d != NULL && *d != NULL; d++)
    if (**d != '\0')
      g_ptr_array_add (dirs, g_strdup (*d));
  if (!use_defaults)
    return dirs;
  append_path_list (dirs, g_getenv ("MSPERF_PLUGIN_PATH"));
  /* The build tree's modules when running uninstalled, so they win over whatever an older
   * install left behind; else $(pkglibdir). */
  g_ptr_array_add (dirs, msperf_paths_plugin_dir ());
  return dirs;
}

char *
msperf_plugin_capabilities (const msperf_plugin *plugin)
{
  GString *s;

  g_return_val_if_fail (plugin != NULL, NULL);
  s = g_string_new (NULL);
  if (plugin->lookup != NULL)
    g_string_append (s, "lookup,");
  if (plugin->describe_target != NULL && plugin->describe_row != NULL)
    g_string_append (s, "interpolate,");
  if (plugin->model != NULL)
    g_string_append (s, "model,");
  if (plugin->decompose != NULL)
    g_string_append (s, "decompose,");
  if (s->len > 0)
    g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The candidate stems of dir (file names msperf_<stem>.la / .so), sorted so that discovery
 * order, duplicate detection and `plugins list` do not depend on readdir order. */
static GPtrArray *
list_stems (const char *dir)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) d = g_dir_open (dir, 0, &error);
  g_autoptr (GHashTable) seen = NULL;
  GPtrArray *stems;
  const char *entry;

  if (d == NULL)
    {
      g_debug ("module directory %s skipped: %s", dir, error->message);
      return NULL;
    }
  stems = g_ptr_array_new_with_free_func (g_free);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  while ((entry = g_dir_read_name (d)) != NULL)
    {
      size_t len = strlen (entry);
      char *stem;

      if (!g_str_has_prefix (entry, MODULE_PREFIX)
          || (!g_str_has_suffix (entry, ".la") && !g_str_has_suffix (entry, ".so"))
          || len <= strlen (MODULE_PREFIX) + 3)
        continue;
      stem = g_strndup (entry + strlen (MODULE_PREFIX), len - strlen (MODULE_PREFIX) - 3);
      if (g_hash_table_contains (seen, stem))
        {
          g_free (stem);
          continue;
        }
      g_hash_table_add (seen, stem);
      g_ptr_array_add (stems, stem);
    }
  g_ptr_array_sort (stems, compare_strings);
  return stems;
}

/* Records why a candidate is unusable (takes reason) and says it once, naming the file. */
static void
reject (msperf_plugin_info *info, char *reason)
{
  info->status = MSPERF_PLUGIN_REJECTED;
  g_free (info->reason);
  info->reason = reason;
  {
    /* The file name and a module's own strings may hold ESC sequences or invalid UTF-8. */
    g_autofree char *file = msperf_fmt_printable (info->file);
    g_autofree char *why = msperf_fmt_printable (reason);

    g_warning ("%s: module rejected: %s", file, why);
  }
}

/* The descriptor may come from any build of any project: check the fixed-position fields
 * (abi, size) before trusting the layout of the rest. Returns the problem, or NULL. */
static char *
check_descriptor (const msperf_plugin *p)
{
  /* Major equal, minor at most the core's (doc/plugin-guide.md § Versions). */
  if (p->abi != MSPERF_PLUGIN_ABI_MAJOR)
    return g_strdup_printf ("ABI %u, expected %u", (unsigned) p->abi,
                            (unsigned) MSPERF_PLUGIN_ABI_MAJOR);
  if (p->abi_minor > MSPERF_PLUGIN_ABI_MINOR)
    return g_strdup_printf ("ABI %u.%u is newer than this msperf's %u.%u", (unsigned) p->abi,
                            (unsigned) p->abi_minor, (unsigned) MSPERF_PLUGIN_ABI_MAJOR,
                            (unsigned) MSPERF_PLUGIN_ABI_MINOR);
  if (p->size < sizeof (msperf_plugin))
    return g_strdup_printf ("descriptor size %u smaller than %zu", (unsigned) p->size,
                            sizeof (msperf_plugin));
  if (p->name == NULL || p->name[0] == '\0')
    return g_strdup ("descriptor has no name");
  if (!g_utf8_validate (p->name, -1, NULL))
    return g_strdup ("descriptor name is not UTF-8");
  for (size_t i = 0; i < G_N_ELEMENTS (p->reserved); i++)
    if (p->reserved[i] != NULL)
      return g_strdup_printf ("reserved slot %zu is not NULL (module built for a newer msperf?)",
                              i);
  return NULL;
}

/* lt_dlopenadvise with local symbols, so modules cannot see (or clash with) each other's
 * symbols. On failure *why receives libltdl's message. */
static lt_dlhandle
open_module (const char *file, char **why)
{
  lt_dladvise advise;
  lt_dlhandle handle = NULL;
  const char *err;

  if (lt_dladvise_init (&advise) == 0)
    {
      if (lt_dladvise_ext (&advise) == 0 && lt_dladvise_local (&advise) == 0)
        handle = lt_dlopenadvise (file, advise);
      lt_dladvise_destroy (&advise);
    }
  if (handle == NULL)
    {
      err = lt_dlerror ();
      *why = g_strdup (err != NULL ? err : "no reason given");
    }
  return handle;
}

/* The file that stands for stem in dir: the .la when present (it knows where the real object
 * is, also in an uninstalled build tree), else the .so. */
static char *
candidate_file (const char *dir, const char *stem)
{
  g_autofree char *la = g_strconcat (MODULE_PREFIX, stem, ".la", NULL);
  g_autofree char *so = g_strconcat (MODULE_PREFIX, stem, ".so", NULL);
  char *path = g_build_filename (dir, la, NULL);
  GStatBuf st;

  if (g_lstat (path, &st) == 0)
    return path;
  g_free (path);
  return g_build_filename (dir, so, NULL);
}

/* First claim wins, as for mode names; a later claim is a warning. */
static void
claim_route (GHashTable *map, const char *what, const char *key, const char *name,
             const char *file)
{
  const char *other = g_hash_table_lookup (map, key);

  if (other != NULL)
    {
      if (strcmp (other, name) != 0)
        g_warning ("%s: %s '%s' is already answered by module '%s': ignored here", file, what,
                   key, other);
      return;
    }
  g_hash_table_insert (map, g_strdup (key), g_strdup (name));
}

static void
claim_routes (msperf_registry *reg, const msperf_plugin *p, const char *file)
{
  for (const char *const *k = p->att_kinds; k != NULL && *k != NULL; k++)
    claim_route (reg->by_att_kind, "att.kind", *k, p->name, file);
  for (const char *const *k = p->aliases; k != NULL && *k != NULL; k++)
    claim_route (reg->by_alias, "query mode", *k, p->name, file);
  for (const char *const *k = p->categories; k != NULL && *k != NULL; k++)
    claim_route (reg->by_category, "category", *k, p->name, file);
  if ((p->flags & MSPERF_PLUGIN_DEFAULT_MODE) && reg->default_mode == NULL)
    reg->default_mode = g_strdup (p->name);
  if ((p->flags & MSPERF_PLUGIN_STATIC_COMPOSITE) && reg->static_composite == NULL)
    reg->static_composite = g_strdup (p->name);
  if (p->flags & MSPERF_PLUGIN_INTERPOLATE_BY_DEFAULT)
    g_ptr_array_add (reg->interpolated, g_strdup (p->name));
  if (p->policy_schema != NULL)
    {
      g_ptr_array_add (reg->schemas, g_strdup (p->name));
      g_ptr_array_add (reg->schemas, g_strdup (p->policy_schema));
    }
  for (const char *const *k = p->collective_prefixes; k != NULL && *k != NULL; k++)
    if (**k != '\0')
      g_ptr_array_insert (reg->prefixes, (gint) reg->prefixes->len - 1, g_strdup (*k));
}

static void
add_loaded (msperf_registry *reg, lt_dlhandle handle, const msperf_plugin *p, void *state,
            const char *file)
{
  module *m = g_new0 (module, 1);

  m->handle = handle;
  m->plugin = p;
  m->state = state;
  g_ptr_array_add (reg->modules, m);
  g_hash_table_insert (reg->by_name, g_strdup (p->name), m);
  for (const char *const *op = p->op_names; op != NULL && *op != NULL; op++)
    {
      module *other = g_hash_table_lookup (reg->by_op, *op);

      if (other != NULL)
        {
          g_warning ("%s: op '%s' is already decomposed by module '%s': ignored here", file, *op,
                     other->plugin->name);
          continue;
        }
      g_hash_table_insert (reg->by_op, g_strdup (*op), m);
    }
}

static gboolean
is_elf (const char *file)
{
  char magic[4] = { 0 };
  FILE *f = g_fopen (file, "rb");
  size_t n;

  if (f == NULL)
    return FALSE;
  n = fread (magic, 1, sizeof magic, f);
  fclose (f);
  return n == sizeof magic && memcmp (magic, "\177ELF", sizeof magic) == 0;
}

/* Only code from the configured directories runs: a shared object that is a symlink resolving
 * outside dir (after every link, also in dir itself) is refused. Returns the problem or NULL. */
static char *
outside_dir (const char *file, const char *dir)
{
  g_autofree char *real_file = realpath (file, NULL);
  g_autofree char *real_dir = realpath (dir, NULL);
  size_t n;

  if (real_file == NULL || real_dir == NULL)
    return g_strdup_printf ("cannot resolve the path: %s", g_strerror (errno));
  n = strlen (real_dir);
  if (strncmp (real_file, real_dir, n) == 0
      && (real_file[n] == G_DIR_SEPARATOR || (n == 1 && real_dir[0] == G_DIR_SEPARATOR)))
    return NULL;
  return g_strdup_printf ("resolves to %s, outside the module directory %s", real_file,
                          real_dir);
}

/* MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1: the user takes the risk of writable module places. */
static gboolean
insecure_allowed (void)
{
  const char *allow = g_getenv ("MSPERF_ALLOW_INSECURE_PLUGIN_DIR");

  return allow != NULL && strcmp (allow, "1") == 0;
}

/* Whoever may write the file, its directory or (without the sticky bit) any directory above
 * it can swap the code msperf runs. Checks the real location of file: the file itself and
 * its directory must not be world-writable; a further parent must not be world-writable
 * unless sticky (/tmp), where no one can rename another user's entry. Returns the problem or
 * NULL. */
static char *
insecure_location (const char *file)
{
  g_autofree char *real = realpath (file, NULL);
  g_autofree char *dir = NULL;
  GStatBuf st;

  if (insecure_allowed ())
    return NULL;
  if (real == NULL)
    return g_strdup_printf ("cannot resolve the path: %s", g_strerror (errno));
  if (g_stat (real, &st) == 0 && (st.st_mode & S_IWOTH) != 0)
    return g_strdup_printf ("%s is world-writable (mode %04o): refused (set "
                            "MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 to allow it)", real,
                            (unsigned) (st.st_mode & 07777));
  dir = g_path_get_dirname (real);
  for (gboolean first = TRUE;; first = FALSE)
    {
      char *up;

      if (g_stat (dir, &st) == 0 && (st.st_mode & S_IWOTH) != 0
          && (first || (st.st_mode & S_ISVTX) == 0))
        return g_strdup_printf ("directory %s above %s is world-writable (mode %04o): refused "
                                "(set MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 to allow it)", dir,
                                real, (unsigned) (st.st_mode & 07777));
      if (strcmp (dir, G_DIR_SEPARATOR_S) == 0 || strcmp (dir, ".") == 0)
        return NULL;
      up = g_path_get_dirname (dir);
      g_free (dir);
      dir = up;
    }
}

/* The value of key in a libtool .la file (lines key='value'), or NULL. */
static char *
la_value (const char *text, const char *key)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  size_t n = strlen (key);

  for (char **l = lines; *l != NULL; l++)
    if (strncmp (*l, key, n) == 0 && (*l)[n] == '=')
      {
        const char *v = *l + n + 1;
        size_t len = strlen (v);

        if (len >= 2 && v[0] == '\'' && v[len - 1] == '\'')
          return g_strndup (v + 1, len - 2);
        return g_strdup (v);
      }
  return NULL;
}

/* Whether a and b (canonical) name one directory, also through symlinks (/usr/lib64). */
static gboolean
same_dir (const char *a, const char *b)
{
  g_autofree char *real_a = NULL;
  g_autofree char *real_b = NULL;

  if (strcmp (a, b) == 0)
    return TRUE;
  real_a = realpath (a, NULL);
  real_b = realpath (b, NULL);
  return real_a != NULL && real_b != NULL && strcmp (real_a, real_b) == 0;
}

/* The object a .la stands for, resolved here the way libltdl would, so that the object that
 * is checked is the object that is opened: an installed .la's libdir must be the module
 * directory itself (else libltdl loads whatever that other directory holds); an uninstalled
 * one names its object in .libs next to it. Returns the object path, or NULL with *why. */
static char *
la_object (const char *la, const char *dir, char **why)
{
  g_autofree char *text = NULL;
  g_autofree char *dlname = NULL;
  g_autofree char *installed = NULL;
  g_autofree char *libdir = NULL;
  g_autofree char *canon = NULL;
  char *object;

  if (!g_file_get_contents (la, &text, NULL, NULL) || !g_utf8_validate (text, -1, NULL)
      || (dlname = la_value (text, "dlname")) == NULL || *dlname == '\0'
      || strchr (dlname, G_DIR_SEPARATOR) != NULL)
    {
      *why = g_strdup ("not a loadable object: not a libtool library, or the object it names "
                       "is missing");
      return NULL;
    }
  installed = la_value (text, "installed");
  libdir = la_value (text, "libdir");
  if (installed != NULL && strcmp (installed, "yes") == 0)
    {
      canon = libdir != NULL ? g_canonicalize_filename (libdir, NULL) : NULL;
      if (canon == NULL || !same_dir (canon, dir))
        {
          *why = g_strdup_printf ("its libdir '%s' is not the module directory %s: refused "
                                  "(libltdl would load the object from there)",
                                  libdir != NULL ? libdir : "", dir);
          return NULL;
        }
      return g_build_filename (dir, dlname, NULL);
    }
  object = g_build_filename (dir, ".libs", dlname, NULL);
  if (g_file_test (object, G_FILE_TEST_EXISTS))
    return object;
  g_free (object);
  return g_build_filename (dir, dlname, NULL);
}

/* Where the code of info's candidate really is, and whether anyone else could have written
 * it: the .la (when the candidate is one), the object it names and every directory above
 * both. On success *object is the file to open (the .la is not opened: libltdl would find the
 * object by its own rules, not necessarily the one checked here). */
static gboolean
check_location (msperf_plugin_info *info, const char *dir, char **object)
{
  char *problem = insecure_location (info->file);

  if (problem == NULL && g_str_has_suffix (info->file, ".la"))
    {
      *object = la_object (info->file, dir, &problem);
      if (*object != NULL && !g_file_test (*object, G_FILE_TEST_IS_REGULAR))
        problem = g_strdup_printf ("not a loadable object: not a libtool library, or the object "
                                   "it names is missing (%s)", *object);
      if (problem == NULL)
        problem = insecure_location (*object);
    }
  else if (problem == NULL)
    *object = g_strdup (info->file);
  if (problem == NULL)
    return TRUE;
  reject (info, problem);
  return FALSE;
}

/* Runs every check on one candidate and records the outcome in a new info. */
static void
load_candidate (msperf_registry *reg, const char *dir, const char *stem, GHashTable *disabled,
                msperf_engine *engine)
{
  msperf_plugin_info *info = g_new0 (msperf_plugin_info, 1);
  g_autoptr (GError) error = NULL;
  lt_dlhandle handle = NULL;
  const msperf_plugin *p;
  g_autofree char *object = NULL;
  char *problem = NULL;
  void *state = NULL;
  GStatBuf st;
  claim *c;

  g_ptr_array_add (reg->infos, info);
  info->name = g_strdup (stem);
  info->file = candidate_file (dir, stem);
  info->capabilities = g_strdup ("");

  /* Before dlopen: opening a fifo would block, and a directory gives a useless message. */
  if (g_stat (info->file, &st) != 0)
    {
      int saved = errno;

      reject (info, g_strdup_printf ("unreadable: %s", g_strerror (saved)));
      return;
    }
  if (!S_ISREG (st.st_mode))
    {
      reject (info, g_strdup ("not a regular file"));
      return;
    }
  /* A .la is libtool's text indirection (the build tree links them); the object it names is
   * found by libltdl next to it or in its libdir. */
  problem = g_str_has_suffix (info->file, ".so") ? outside_dir (info->file, dir) : NULL;
  if (problem != NULL)
    {
      reject (info, problem);
      return;
    }
  if (g_access (info->file, R_OK) != 0)
    {
      int saved = errno;

      reject (info, g_strdup_printf ("unreadable: %s", g_strerror (saved)));
      return;
    }
  if (!reg->ltdl_ready)
    {
      reject (info, g_strdup ("libltdl could not be initialised"));
      return;
    }
  if (!check_location (info, dir, &object))
    return;

  handle = open_module (object, &problem);
  if (handle == NULL)
    {
      /* libltdl often reports only "file not found" (its preload loader runs last), so say
       * what we know and where to look, as collectd does. */
      if (!is_elf (object))
        reject (info, g_strdup_printf ("not a loadable object: not an ELF file (libltdl: %s)",
                                       problem));
      else
        reject (info, g_strdup_printf ("not a loadable object (libltdl: %s); run 'ldd %s' to "
                                       "check it and its libraries", problem, object));
      g_free (problem);
      return;
    }

  p = lt_dlsym (handle, MSPERF_PLUGIN_SYMBOL);
  if (p == NULL)
    {
      reject (info, g_strdup ("missing symbol " MSPERF_PLUGIN_SYMBOL));
      goto close;
    }
  problem = check_descriptor (p);
  if (problem != NULL)
    {
      reject (info, problem);
      goto close;
    }

  g_free (info->name);
  info->name = g_strdup (p->name);
  info->version = g_strdup (p->version);
  info->description = g_strdup (p->description);
  g_free (info->capabilities);
  info->capabilities = msperf_plugin_capabilities (p);

  c = g_hash_table_lookup (reg->claims, p->name);
  if (c != NULL && strcmp (c->dir, dir) == 0)
    {
      reject (info, g_strdup_printf ("duplicate module name '%s' in %s (already loaded from %s)",
                                     p->name, dir, c->file));
      goto close;
    }
  if (c != NULL)
    {
      /* Expected when a build tree and an install both provide the module: not a warning. */
      info->status = MSPERF_PLUGIN_SKIPPED;
      info->reason = g_strdup_printf ("shadowed by %s", c->file);
      g_debug ("%s: module '%s' skipped: shadowed by %s", info->file, p->name, c->file);
      goto close;
    }
  c = g_new0 (claim, 1);
  c->dir = g_strdup (dir);
  c->file = g_strdup (info->file);
  g_hash_table_insert (reg->claims, g_strdup (p->name), c);

  claim_routes (reg, p, info->file);
  if (disabled != NULL && g_hash_table_contains (disabled, p->name))
    {
      info->status = MSPERF_PLUGIN_DISABLED;
      info->reason = g_strdup ("disabled by policy");
      g_debug ("%s: module '%s' disabled by policy", info->file, p->name);
      goto close;
    }

  if (p->init != NULL && !p->init (engine, &state, &error))
    {
      reject (info, g_strdup (error != NULL ? error->message : "init failed with no message"));
      goto close;
    }

  info->status = MSPERF_PLUGIN_LOADED;
  add_loaded (reg, handle, p, state, info->file);
  g_debug ("%s: module '%s' %s loaded", info->file, p->name, p->version ? p->version : "");
  return;

close:
  lt_dlclose (handle);
}

/* A directory anyone may write to lets any local user plant code that msperf would run (with
 * the sticky bit too: a new msperf_<stem>.so needs no one else's file). Returns the reason to
 * refuse dir (or its .libs, where an uninstalled .la points), or NULL when it is safe or the
 * user opted in with MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1. */
static char *
insecure_dir (const char *dir)
{
  g_autofree char *libs = g_build_filename (dir, ".libs", NULL);
  const char *check[] = { dir, libs };
  GStatBuf st;

  if (insecure_allowed ())
    return NULL;
  for (size_t k = 0; k < G_N_ELEMENTS (check); k++)
    if (g_stat (check[k], &st) == 0 && S_ISDIR (st.st_mode) && (st.st_mode & S_IWOTH) != 0)
      return g_strdup_printf ("module directory %s is world-writable (mode %04o): refused "
                              "(set MSPERF_ALLOW_INSECURE_PLUGIN_DIR=1 to allow it)",
                              check[k], (unsigned) (st.st_mode & 07777));
  return NULL;
}

/* Records every candidate of a refused directory, so `plugins list` explains each file. */
static void
refuse_dir (msperf_registry *reg, const char *dir, GPtrArray *stems, const char *why)
{
  g_warning ("%s", why);
  for (guint i = 0; stems != NULL && i < stems->len; i++)
    {
      msperf_plugin_info *info = g_new0 (msperf_plugin_info, 1);

      info->name = g_strdup (g_ptr_array_index (stems, i));
      info->file = candidate_file (dir, info->name);
      info->capabilities = g_strdup ("");
      info->status = MSPERF_PLUGIN_REJECTED;
      info->reason = g_strdup (why);
      g_ptr_array_add (reg->infos, info);
    }
}

static void
registry_load_locked (msperf_registry *reg, const char *const *dirs, GHashTable *disabled,
                      msperf_engine *engine)
{
  for (const char *const *d = dirs; d != NULL && *d != NULL; d++)
    {
      g_autofree char *dir = g_canonicalize_filename (*d, NULL);
      g_autoptr (GPtrArray) stems = NULL;

      /* The same dir twice (--plugins-dir and MSPERF_PLUGIN_PATH) must not make every module
       * a duplicate of itself. */
      if (g_hash_table_contains (reg->dirs_seen, dir))
        {
          g_debug ("module directory %s already scanned", dir);
          continue;
        }
      g_hash_table_add (reg->dirs_seen, g_strdup (dir));
      stems = list_stems (dir);
      if (stems != NULL && stems->len > 0)
        {
          g_autofree char *why = insecure_dir (dir);

          if (why != NULL)
            {
              refuse_dir (reg, dir, stems, why);
              continue;
            }
        }
      for (guint i = 0; stems != NULL && i < stems->len; i++)
        load_candidate (reg, dir, g_ptr_array_index (stems, i), disabled, engine);
    }
}

void
msperf_registry_load (msperf_registry *reg, const char *const *dirs, GHashTable *disabled,
                      msperf_engine *engine)
{
  g_return_if_fail (reg != NULL);
  pthread_mutex_lock (&ltdl_lock);
  registry_load_locked (reg, dirs, disabled, engine);
  pthread_mutex_unlock (&ltdl_lock);
}

const msperf_plugin *
msperf_registry_lookup (msperf_registry *reg, const char *name, void **state)
{
  module *m;

  g_return_val_if_fail (reg != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);
  m = g_hash_table_lookup (reg->by_name, name);
  if (state != NULL)
    *state = m != NULL ? m->state : NULL;
  return m != NULL ? m->plugin : NULL;
}

const msperf_plugin *
msperf_registry_decomposer (msperf_registry *reg, const char *op_name, void **state)
{
  module *m;

  g_return_val_if_fail (reg != NULL, NULL);
  g_return_val_if_fail (op_name != NULL, NULL);
  m = g_hash_table_lookup (reg->by_op, op_name);
  if (state != NULL)
    *state = m != NULL ? m->state : NULL;
  return m != NULL ? m->plugin : NULL;
}

const GPtrArray *
msperf_registry_infos (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->infos;
}

const char *
msperf_registry_att_module (msperf_registry *reg, const char *kind)
{
  g_return_val_if_fail (reg != NULL && kind != NULL, NULL);
  return g_hash_table_lookup (reg->by_att_kind, kind);
}

const char *
msperf_registry_category_module (msperf_registry *reg, const char *category)
{
  g_return_val_if_fail (reg != NULL && category != NULL, NULL);
  return g_hash_table_lookup (reg->by_category, category);
}

const char *
msperf_registry_canonical_mode (msperf_registry *reg, const char *mode)
{
  const char *name;

  g_return_val_if_fail (reg != NULL && mode != NULL, NULL);
  name = g_hash_table_lookup (reg->by_alias, mode);
  return name != NULL ? name : mode;
}

const GPtrArray *
msperf_registry_interpolated_by_default (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->interpolated;
}

const GPtrArray *
msperf_registry_policy_schemas (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->schemas;
}

const char *const *
msperf_registry_collective_prefixes (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return (const char *const *) reg->prefixes->pdata;
}

const char *
msperf_registry_default_mode (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->default_mode;
}

const char *
msperf_registry_static_composite (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->static_composite;
}

const GPtrArray *
msperf_registry_loaded (msperf_registry *reg)
{
  g_return_val_if_fail (reg != NULL, NULL);
  return reg->modules;
}

const msperf_plugin *
msperf_registry_plugin_at (msperf_registry *reg, guint i, void **state)
{
  const module *m;

  g_return_val_if_fail (reg != NULL && i < reg->modules->len, NULL);
  m = g_ptr_array_index (reg->modules, i);
  if (state != NULL)
    *state = m->state;
  return m->plugin;
}
