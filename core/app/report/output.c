/* msperf — checked writing of outputs (a full disk must not leave a truncated file
 * behind an exit status 0, and an output must never turn a device node or a symlink into a
 * regular file). */
#define _GNU_SOURCE  /* fopencookie; realpath, lstat, fchmod, fsync, O_CLOEXEC (POSIX) */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <msperf/error.h>
#include "app/report/output.h"

/* A stream over a descriptor that remembers the errno of its first failed write: stdio keeps
 * only an error flag, and the final fflush, with nothing left to write, cannot say why. */
typedef struct {
  int fd;
  int first_errno;
  gboolean close_fd;
} fd_cookie;

static ssize_t
cookie_write (void *c, const char *buf, size_t n)
{
  fd_cookie *k = c;
  size_t done = 0;

  while (done < n)
    {
      ssize_t w = write (k->fd, buf + done, n - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          if (k->first_errno == 0)
            k->first_errno = w < 0 ? errno : EIO;
          return -1;
        }
      done += (size_t) w;
    }
  return (ssize_t) n;
}

static int
cookie_close (void *c)
{
  fd_cookie *k = c;
  int rc = 0;

  if (k->close_fd && close (k->fd) != 0 && k->first_errno == 0)
    {
      k->first_errno = errno;
      rc = -1;
    }
  return rc;
}

/* The recorded errno of f, or 0 (a plain stdio stream records nothing). */
static int
stream_errno (fd_cookie *k)
{
  return k ? k->first_errno : 0;
}

static FILE *
fd_stream (int fd, gboolean close_fd, fd_cookie **cookie_out)
{
  fd_cookie *k = g_new0 (fd_cookie, 1);
  cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
  FILE *f;

  k->fd = fd;
  k->close_fd = close_fd;
  f = fopencookie (k, "w", io);
  if (f == NULL)
    {
      g_free (k);
      return NULL;
    }
  *cookie_out = k;
  return f;
}

struct msperf_outfile {
  fd_cookie *cookie;
  char *path;     /* as named by the user, for messages */
  char *target;   /* the file finally written (path, or its same-directory link target) */
  char *tmp;      /* temporary name when replacing atomically, else NULL */
  FILE *f;
};

static void
io_error (GError **error, const char *path, int err)
{
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "%s: %s", path, g_strerror (err));
}

/* A symlink's target, accepted only when it stays in the link's own directory: the user named
 * that directory, not the one the link points into. Transfer full, NULL with error. */
static char *
link_target (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *real_dir = realpath (dir, NULL);
  g_autofree char *real = realpath (path, NULL);
  g_autofree char *real_parent = NULL;

  if (real == NULL)
    {
      /* A dangling link: writing would create a file wherever it points. */
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: refusing to write through a dangling symbolic link", path);
      return NULL;
    }
  real_parent = g_path_get_dirname (real);
  if (real_dir == NULL || strcmp (real_parent, real_dir) != 0)
    {
      struct stat st;
      /* Special files (/dev/stdout, /dev/null) are written in place wherever they are. */
      if (stat (real, &st) == 0 && !S_ISREG (st.st_mode))
        return g_steal_pointer (&real);
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO,
                   "%s: refusing to write through a symbolic link out of its directory", path);
      return NULL;
    }
  return g_steal_pointer (&real);
}

static gboolean
open_in_place (msperf_outfile *of, GError **error)
{
  int fd = open (of->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    {
      io_error (error, of->path, errno);
      return FALSE;
    }
  of->f = fd_stream (fd, TRUE, &of->cookie);
  if (of->f == NULL)
    {
      io_error (error, of->path, errno);
      close (fd);
      return FALSE;
    }
  return TRUE;
}

static gboolean
open_temporary (msperf_outfile *of, mode_t mode, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (of->target);
  g_autofree char *base = g_path_get_basename (of->target);
  int fd;

  of->tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  fd = g_mkstemp_full (of->tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      io_error (error, of->path, errno);
      g_clear_pointer (&of->tmp, g_free);
      return FALSE;
    }
  /* Keep the permissions a replaced file had; a new file gets the usual 0666 & ~umask. */
  if (fchmod (fd, mode) != 0)
    {
      io_error (error, of->path, errno);
      close (fd);
      g_unlink (of->tmp);
      g_clear_pointer (&of->tmp, g_free);
      return FALSE;
    }
  of->f = fd_stream (fd, TRUE, &of->cookie);
  if (of->f == NULL)
    {
      io_error (error, of->path, errno);
      close (fd);
      g_unlink (of->tmp);
      g_clear_pointer (&of->tmp, g_free);
      return FALSE;
    }
  return TRUE;
}

static mode_t
default_mode (void)
{
  mode_t mask = umask (0);
  umask (mask);
  return 0666 & ~mask;
}

msperf_outfile *
msperf_outfile_open (const char *path, GError **error)
{
  msperf_outfile *of;
  struct stat st;
  gboolean ok;

  g_return_val_if_fail (path != NULL && *path != '\0', NULL);
  of = g_new0 (msperf_outfile, 1);
  of->path = g_strdup (path);
  if (lstat (path, &st) == 0 && S_ISLNK (st.st_mode))
    {
      of->target = link_target (path, error);
      if (of->target == NULL)
        {
          msperf_outfile_abort (of);
          return NULL;
        }
    }
  else
    of->target = g_strdup (path);
  if (stat (of->target, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          io_error (error, path, EISDIR);
          ok = FALSE;
        }
      else if (S_ISREG (st.st_mode))
        ok = open_temporary (of, st.st_mode & 07777, error);
      else
        ok = open_in_place (of, error);
    }
  else if (errno == ENOENT)
    ok = open_temporary (of, default_mode (), error);
  else
    {
      io_error (error, path, errno);
      ok = FALSE;
    }
  if (!ok)
    {
      msperf_outfile_abort (of);
      return NULL;
    }
  return of;
}

FILE *
msperf_outfile_stream (msperf_outfile *of)
{
  g_return_val_if_fail (of != NULL, NULL);
  return of->f;
}

static void
outfile_free (msperf_outfile *of)
{
  g_free (of->path);
  g_free (of->target);
  g_free (of->tmp);
  g_free (of->cookie);
  g_free (of);
}

void
msperf_outfile_abort (msperf_outfile *of)
{
  if (of == NULL)
    return;
  if (of->f)
    fclose (of->f);
  if (of->tmp)
    g_unlink (of->tmp);
  outfile_free (of);
}

gboolean
msperf_outfile_close (msperf_outfile *of, GError **error)
{
  int err = 0;
  gboolean failed;

  g_return_val_if_fail (of != NULL, FALSE);
  failed = fflush (of->f) != 0 || ferror (of->f);
  if (failed)
    err = stream_errno (of->cookie) ? stream_errno (of->cookie) : EIO;
  if (!failed && of->tmp && fsync (of->cookie->fd) != 0 && errno != EINVAL)
    {
      failed = TRUE;
      err = errno;
    }
  if (fclose (of->f) != 0 && !failed)
    {
      failed = TRUE;
      err = errno;
    }
  of->f = NULL;
  if (!failed && of->tmp && g_rename (of->tmp, of->target) != 0)
    {
      failed = TRUE;
      err = errno;
    }
  if (failed)
    {
      io_error (error, of->path, err);
      msperf_outfile_abort (of);
      return FALSE;
    }
  outfile_free (of);
  return TRUE;
}

struct msperf_stdout {
  FILE *f;            /* the checked stream, or stdout itself when none could be made */
  fd_cookie *cookie;  /* NULL with plain stdout */
};

msperf_stdout *
msperf_stdout_open (void)
{
  msperf_stdout *o = g_new0 (msperf_stdout, 1);

  o->f = fd_stream (STDOUT_FILENO, FALSE, &o->cookie);
  if (o->f == NULL)
    {
      o->f = stdout;  /* plain stdout: a failure is then reported as EIO */
      return o;
    }
  if (isatty (STDOUT_FILENO))
    setvbuf (o->f, NULL, _IOLBF, 0);
  /* Whatever stdio's own stdout holds goes first. */
  fflush (stdout);
  return o;
}

FILE *
msperf_stdout_stream (msperf_stdout *o)
{
  g_return_val_if_fail (o != NULL, stdout);
  return o->f;
}

gboolean
msperf_stdout_ok (msperf_stdout *o, GError **error)
{
  int err = 0;

  g_return_val_if_fail (o != NULL, FALSE);
  if (fflush (o->f) != 0 || ferror (o->f))
    err = stream_errno (o->cookie) ? stream_errno (o->cookie) : EIO;
  if (err == 0)
    return TRUE;
  g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_IO, "stdout: %s", g_strerror (err));
  return FALSE;
}

void
msperf_stdout_free (msperf_stdout *o)
{
  if (o == NULL)
    return;
  /* The stream over descriptor 1 is closed; the descriptor stays open (close_fd FALSE). */
  if (o->cookie != NULL)
    fclose (o->f);
  g_free (o->cookie);
  g_free (o);
}
