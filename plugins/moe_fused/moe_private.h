/* msperf module "moe_fused" — what its lookup and its interpolation coordinates share. */
#ifndef MSPERF_PLUGINS_MOE_FUSED_MOE_PRIVATE_H
#define MSPERF_PLUGINS_MOE_FUSED_MOE_PRIVATE_H

#include <msperf/plugin.h>

G_BEGIN_DECLS

/* project_full_shape (reference §2.7 step 3, upstream _project_dispatch_ffn_combine_inputs):
 * the seven physical DispatchFFNCombine inputs. FALSE when the op does not have that argument
 * layout. */
gboolean moe_project_inputs (const msperf_op *op, msperf_tensor in[7]);

/* Interpolation coordinates (moe_axes.c): the token count of x, in a regime of kernel, input
 * count, dtypes and the token-free input shapes, with ep_size and top-k as exact fields. */
gboolean moe_describe_target (msperf_engine *engine, void *state, const msperf_query *query,
                              msperf_point *point);
gboolean moe_describe_row (msperf_engine *engine, void *state, const msperf_table *table,
                           size_t row, msperf_point *point);

G_END_DECLS

#endif /* MSPERF_PLUGINS_MOE_FUSED_MOE_PRIVATE_H */
