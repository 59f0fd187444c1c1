/* msperf module "communication". Query logic arrives with its issue; until then the module registers
 * its name and version and fills no slot (so `plugins info` lists no capability). */
#include <config.h>
#include <msperf/plugin.h>

MSPERF_PLUGIN_EXPORT const msperf_plugin msperf_plugin_v1 = {
  .abi = MSPERF_PLUGIN_ABI,
  .size = sizeof (msperf_plugin),
  .name = "communication",
  .version = PACKAGE_VERSION,
  .description = "communication query mode",
};
