/* msperf (internal) — strict command lines: options checked against the subcommand's own. */
#ifndef MSPERF_CORE_CLI_OPTIONS_H
#define MSPERF_CORE_CLI_OPTIONS_H

#include <limits.h>
#include <glib.h>
#include <msperf/database.h>
#include "cli/cli.h"

/* Checks every long option of args (args[0] is the program name) against entries before
 * GOption sees them: an option the command does not take is an error naming the command, with
 * "did you mean --X?" for a near miss. GOption would say "Unknown option" without either, and
 * would accept hidden entries of another subcommand silently. A global option of
 * msperf (--plugins-dir, --policy, --log-format, -v/--verbose, --version) the command does not
 * take itself is refused as "a global option: put it before the subcommand". */
gboolean msperf_cli_check_options (const char *command, const GOptionEntry *entries,
                                   char *const *args, GError **error);
/* msperf_cli_check_options on args against entries (GOptionEntry), then GOption parses
 * args with ctx; anything left but the program name is an "unexpected argument" error. */
gboolean msperf_cli_parse_options (const char *command, GOptionContext *ctx, GArray *entries,
                                   char ***args, GError **error);
/* Closest of candidates to word within a small edit distance, or NULL. Transfer none. */
const char *msperf_cli_closest (const char *word, const char *const *candidates);

/* Sets db's collective kernel prefixes to what the loaded modules declare (an engine without
 * a database is started to ask them; without modules, no kernel is a collective). */
void msperf_cli_declare_collectives (const msperf_cli_global *g, msperf_database *db);

/* An integer option not given on the command line. */
#define MSPERF_CLI_UNSET INT_MIN
/* value, when given, must be >= min: "--tp must be an integer >= 1, not 0". */
gboolean msperf_cli_check_min (const char *flag, int value, int min, GError **error);
/* value, when given (not NaN), must be > 0: "--memory-gib must be > 0, not 0". */
gboolean msperf_cli_check_positive (const char *flag, double value, GError **error);
/* Acceptance of each MTP draft token when --nextn-accept is not given (serve, e2e, recommend,
 * accuracy). */
#define MSPERF_CLI_NEXTN_ACCEPT 0.7
/* value, when given (not NaN), must be a probability: "--nextn-accept must be in 0..1, not 1.5". */
gboolean msperf_cli_check_fraction (const char *flag, double value, GError **error);
/* value, or fallback when the option was not given. */
int msperf_cli_or (int value, int fallback);

#endif
