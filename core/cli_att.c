/* placeholder: filled in by its owner */
#include <config.h>
typedef int msperf_placeholder_cli_att;
