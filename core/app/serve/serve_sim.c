/* msperf — the serving simulation (doc/serving.md §1-§4).
 *
 * A discrete-event simulation: a binary heap of (time, sequence number) events, the sequence
 * number breaking ties in the order events were made, so a run is a pure function of its inputs
 * and seed. Workers are scheduler instances — one per attention-DP rank of each replica (agg),
 * or of each prefill and decode worker (disagg) — each with its own KV cache in blocks, its
 * waiting queue and running list. A worker runs one step at a time: it builds the step with the
 * policy's one admission/batching loop, asks the step's latency (serve_step.c), and applies the
 * step when the STEP event fires. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "app/serve/serve.h"
#include "app/model/model_e2e.h"
#include "app/model/model_memory.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef enum { EV_ARRIVE, EV_STEP, EV_KV_READY } ev_kind;

typedef struct {
  double t;
  guint64 seq;
  ev_kind kind;
  guint arg;
} event;

typedef struct {
  GArray *items;              /* event, heap-ordered by (t, seq) */
  guint64 next_seq;
} heap;

static gboolean
ev_before (const event *a, const event *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
heap_push (heap *h, double t, ev_kind kind, guint arg)
{
  event e = { t, h->next_seq++, kind, arg };
  event *v;
  guint i;

  g_array_append_val (h->items, e);
  v = (event *) (void *) h->items->data;
  for (i = h->items->len - 1; i > 0;)
    {
      guint parent = (i - 1) / 2;

      if (!ev_before (&v[i], &v[parent]))
        break;
      e = v[i];
      v[i] = v[parent];
      v[parent] = e;
      i = parent;
    }
}

/* Is the next event an arrival at time t? */
static gboolean
heap_next_arrives_at (const heap *h, double t)
{
  const event *v = (const event *) (const void *) h->items->data;

  return h->items->len > 0 && v[0].kind == EV_ARRIVE && v[0].t == t;
}

static gboolean
heap_pop (heap *h, event *out)
{
  event *v = (event *) (void *) h->items->data;
  guint n = h->items->len, i = 0;

  if (n == 0)
    return FALSE;
  *out = v[0];
  v[0] = v[n - 1];
  g_array_set_size (h->items, --n);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;
      event t;

      if (l < n && ev_before (&v[l], &v[m]))
        m = l;
      if (r < n && ev_before (&v[r], &v[m]))
        m = r;
      if (m == i)
        break;
      t = v[i];
      v[i] = v[m];
      v[m] = t;
      i = m;
    }
  return TRUE;
}

/* ---------------------------------------------------------------- state */

typedef enum { R_NEW, R_WAITING, R_RUNNING, R_TRANSFER, R_DONE } req_state;
typedef enum { W_AGG, W_PREFILL, W_DECODE } worker_role;

/* A prompt's full blocks kept in a worker's KV cache after its prefill (prefix caching):
 * referenced by the running requests that use them, evictable (least recently released
 * first) when none does. */
typedef struct {
  int64_t prompt;             /* hash key: the pool's prompt */
  int64_t blocks;
  int64_t refs;
  GList *lru;                 /* link in the worker's lru queue while refs = 0 */
} cached_prompt;

typedef struct {
  /* The fields every step reads first, in one cache line. */
  int64_t prompt;             /* tokens to prefill: isl, or isl + output after a recompute */
  int64_t computed;           /* of prompt */
  double generated;           /* output tokens so far */
  int64_t blocks;             /* KV blocks held */
  int64_t osl;
  req_state state;
  guint worker;
  int64_t isl;
  int64_t prompt_id;          /* in the pool; -1 = a prompt of its own */
  cached_prompt *cached;      /* the cached prompt it holds (its first `shared` blocks) */
  int64_t shared;
  double arrival, first_token, last_token, finish;
  gboolean has_first;
  gboolean await_first;       /* disaggregated: its first token reaches the client with its
                                 first decode step (first_token_from_decode) */
  int64_t hit;                /* prompt tokens it found in the prefix cache when admitted */
} req;

typedef struct {
  guint req;
  int64_t chunk;              /* prefill tokens this step; 0 = a decode entry */
  int64_t ctx;
} entry;

typedef struct {
  worker_role role;
  int64_t max_seqs;           /* sequences a step holds: the pool's limit or the preset's */
  int64_t share;              /* micro-batches sharing the rank's KV cache (1: none) */
  int64_t budget;             /* tokens a step holds: the preset's, or a rank's share of it */
  msperf_serve_steps *steps;
  GQueue waiting;             /* req index + 1 */
  GArray *running;            /* guint req index, admission order */
  int64_t total_blocks, used_blocks;   /* used: the requests' and the cached prompts' */
  GHashTable *pcache;         /* int64 prompt -> cached_prompt (prefix caching), or NULL */
  GQueue lru;                 /* cached_prompt with refs 0, least recently released first */
  int64_t evictable;          /* their blocks */
  double rem_out;             /* remaining output tokens of the running requests */
  double ratio;
  double ratio_scale;         /* the reserve ratios' scale on this rank (attention DP) */
  gboolean busy;
  entry *batch;               /* the step in flight: n_batch entries of cap_batch */
  guint n_batch, cap_batch;
  int64_t *chunk, *ctx;       /* the step's prefill entries, cap_batch each */
  guint n_pre;                /* of them */
  int64_t n_dec;              /* decode entries */
  double kv_sum;              /* their KV lengths, summed in batch order */
  double step_start;
  double kv_time, busy_time;  /* ∫ KV use dt, ∫ dt over steps */
  double batch_time;
  /* The batch in flight is the whole running list, every entry a decode, and the list has
   * not changed since: while no request can cross into a new KV block (dec_room, the least
   * headroom in tokens at that build, exceeds the tokens the steps since could add), the next
   * decode pass would make the same entries and change nothing, so it is reused as is. */
  gboolean dec_ready;
  double dec_room;
  int64_t dec_steps;
  /* With one token a step (no MTP) every count above is a whole number of tokens, so a
   * decode pass of the reused batch that finishes no request changes each running request by
   * exactly one token: such passes are counted (lazy_steps, the last at lazy_t) and written
   * to the requests only when something reads them (settle), and the batch's KV sum is the
   * one of the build that made it (dec_kv) plus one token per entry and pass. Whole numbers
   * below 2^53 add exactly in any order, so the figures are those of the pass-by-pass
   * updates, bit for bit. */
  double dec_kv;              /* KV sum of the batch at that build */
  double dec_left;            /* least remaining output among its requests at that build */
  gboolean step_lazy;         /* the step in flight is the reused batch (see above) */
  int64_t lazy_steps;
  double lazy_t;
  /* Blocks of one token (SGLang's pages): every decode crosses into a new block at every
   * pass. When at that build each entry held exactly its tokens (dec_fits), each later pass
   * takes one block per entry, granted as long as that many are free (no eviction, no
   * preemption: what the entry-by-entry growth does then); the per-request counts are
   * written by settle (lazy_blocks). */
  gboolean dec_fits;
  int64_t lazy_blocks;
  /* With counted passes (sim.lazy_ok) and mixed steps, the reused batch may be the first
   * dec_n running requests only, the ones after them (prefill chunks, requests admitted
   * since) walked one by one at each build and joining it once they decode; else dec_n is
   * the whole running list. */
  guint dec_n;
  /* Blocks of several tokens, with counted passes: a member of the reused batch with room r
   * (tokens free in its blocks, r < block size) at build j crosses into a new block at the
   * builds j + r + 1 + k·block_size; it is listed in cross[(j + r + 1) mod block_size], and
   * the build dec_steps takes one more block for each request of cross[dec_steps mod
   * block_size] while that many are free (no eviction, no preemption: what the entry-by-entry
   * growth does then). dec_room is then the least room of the members not listed. */
  GArray **cross;             /* block_size lists of request indices, or NULL */
  /* The attention-DP ranks of one MoE engine step together: the MoE's collectives (all-gather
   * and reduce-scatter, or dispatch and combine) join every rank in every forward, so a step
   * lasts as long as its slowest rank's (ranks with nothing to run wait in it). Workers
   * [group, group + group_size) are one engine; group_size 1 = independent. */
  guint group, group_size;
  guint group_busy;           /* on a group's first worker: its members with a step in flight */
  int64_t adp_wait;           /* on a group's first worker: steps its ranks have held their
                                 prompts back for (adp_balance_timeout_iters) */
} worker;

typedef struct {
  const msperf_serve_policy *pol;
  const msperf_serve_deployment *dep;
  msperf_serve_record *rec;
  GArray *specs;
  req *reqs;
  guint n_reqs, next_issue;
  worker *w;
  guint n_workers, n_prefill;  /* disagg: workers [0, n_prefill) prefill, the rest decode */
  heap h;
  double now, tau;
  int64_t q;
  double kv_bytes_token;      /* decode pool, per device */
  int64_t preemptions, steps;
  double kv_max;              /* peak share of a worker's KV blocks in use at a step */
  double data_us, total_us;
  GArray *gaps;
  int64_t warmup, cooldown;
  gboolean open_loop;         /* arrivals do not wait for completions */
  int64_t rec_capacity;
  guint n_busy;               /* workers with a step in flight */
  gboolean lazy_ok;           /* one token a step and no per-token record: passes may be
                                 counted, not applied (worker.lazy_steps) */
} sim;

int64_t
msperf_serve_kv_capacity (const msperf_model *model, const msperf_model_layout *layout,
                          double device_bytes, const msperf_serve_policy *pol, GError **error)
{
  msperf_model_runtime rt;
  msperf_model_kv_capacity cap;

  if (device_bytes <= 0)
    {
      if (!msperf_model_check_layout (model, layout, error))
        return 0;
      return -1;
    }
  msperf_model_runtime_init (&rt, device_bytes);
  rt.gpu_memory_utilization = pol->gpu_memory_utilization;
  rt.share_of_free = pol->memory_share_of_free;
  if (!msperf_model_kv_capacity_tokens (model, layout, &rt, &cap, error))
    return 0;
  return cap.tokens;
}

static int64_t
cdiv (int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

static int64_t
blocks_for (const sim *s, double tokens)
{
  return tokens <= 0 ? 0 : cdiv ((int64_t) ceil (tokens), s->pol->block_size);
}

static double
remaining_out (const req *r)
{
  return MAX (0.0, (double) r->osl - r->generated);
}

/* Least loaded worker of [lo, hi) (waiting + running), the first on ties. */
static guint
route (const sim *s, guint lo, guint hi)
{
  guint best = lo;
  guint best_load = G_MAXUINT;

  for (guint i = lo; i < hi; i++)
    {
      guint load = s->w[i].waiting.length + s->w[i].running->len + (s->w[i].busy ? 0 : 0);

      if (load < best_load)
        {
          best = i;
          best_load = load;
        }
    }
  return best;
}

static gboolean start_step (sim *s, guint wi, GError **error);

static void
enqueue (sim *s, guint ri, guint wi)
{
  s->reqs[ri].state = R_WAITING;
  s->reqs[ri].worker = wi;
  g_queue_push_tail (&s->w[wi].waiting, GUINT_TO_POINTER (ri + 1));
}

static void
issue (sim *s, double t)
{
  const msperf_serve_req_spec *sp;
  req *r;

  if (s->next_issue >= s->n_reqs)
    return;
  sp = &g_array_index (s->specs, msperf_serve_req_spec, s->next_issue);
  r = &s->reqs[s->next_issue];
  r->isl = sp->isl;
  r->osl = sp->osl;
  r->prompt_id = sp->prompt;
  r->prompt = sp->isl;
  heap_push (&s->h, t, EV_ARRIVE, s->next_issue);
  s->next_issue++;
}

static void
pc_acquire (worker *w, cached_prompt *c)
{
  if (c->refs++ == 0)
    {
      g_queue_delete_link (&w->lru, c->lru);
      c->lru = NULL;
      w->evictable -= c->blocks;
    }
}

static void
pc_release (worker *w, req *r)
{
  cached_prompt *c = r->cached;

  if (c == NULL)
    return;
  r->cached = NULL;
  r->shared = 0;
  if (--c->refs == 0)
    {
      g_queue_push_tail (&w->lru, c);
      c->lru = w->lru.tail;
      w->evictable += c->blocks;
    }
}

/* Evicts unreferenced cached prompts, least recently released first, until need more blocks
 * fit or none is left. */
static void
pc_evict (worker *w, int64_t need)
{
  while (w->used_blocks + need > w->total_blocks && w->lru.length > 0)
    {
      cached_prompt *c = g_queue_pop_head (&w->lru);

      w->used_blocks -= c->blocks;
      w->evictable -= c->blocks;
      g_hash_table_remove (w->pcache, &c->prompt);
    }
}

/* Frees r's blocks; the ones of a cached prompt stay in the cache. */
static void
free_blocks (worker *w, req *r)
{
  w->used_blocks -= r->blocks - r->shared;
  pc_release (w, r);
  r->blocks = 0;
}

/* Grows r's cache to want blocks (evicting cached prompts no request uses); FALSE when the
 * blocks are not free. */
static gboolean
grow_to (worker *w, req *r, int64_t want)
{
  int64_t need = want - r->blocks;

  if (need <= 0)
    return TRUE;
  if (w->used_blocks + need > w->total_blocks && w->evictable > 0)
    pc_evict (w, need);
  if (w->used_blocks + need > w->total_blocks)
    return FALSE;
  w->used_blocks += need;
  r->blocks += need;
  return TRUE;
}

/* Grows r's cache to tokens; FALSE when the blocks are not free. */
static gboolean
grow (sim *s, worker *w, req *r, double tokens)
{
  return grow_to (w, r, blocks_for (s, tokens));
}

/* Writes the counted decode passes to the running requests (see worker.lazy_steps). */
static void
settle (sim *s, worker *w)
{
  if (w->lazy_steps == 0 && w->lazy_blocks == 0)
    return;
  for (guint i = 0; i < w->dec_n; i++)
    {
      req *r = &s->reqs[g_array_index (w->running, guint, i)];

      r->generated += (double) w->lazy_steps;
      r->last_token = w->lazy_t;
      r->blocks += w->lazy_blocks;
    }
  w->lazy_steps = 0;
  w->lazy_blocks = 0;
}

/* Recompute preemption of the last running request (vLLM's and SGLang's victim): its cache
 * is dropped, it goes back to the head of the queue and will prefill its prompt and the
 * output so far again. */
static void
preempt_last (sim *s, worker *w)
{
  guint ri = g_array_index (w->running, guint, w->running->len - 1);
  req *r = &s->reqs[ri];

  g_array_set_size (w->running, w->running->len - 1);
  w->dec_ready = FALSE;
  free_blocks (w, r);
  w->rem_out -= remaining_out (r);
  if (r->has_first)
    r->prompt = r->isl + (int64_t) floor (r->generated);
  r->computed = 0;
  r->state = R_WAITING;
  g_queue_push_head (&w->waiting, GUINT_TO_POINTER (ri + 1));
  s->preemptions++;
  w->ratio = s->pol->reserve_ratio_init * w->ratio_scale;
}

/* Appends e to the step, with its prefill chunk or its decode KV length. */
static void
push_entry (sim *s, worker *w, const entry *e)
{
  w->batch[w->n_batch++] = *e;
  if (e->chunk > 0)
    {
      w->chunk[w->n_pre] = e->chunk;
      w->ctx[w->n_pre++] = e->ctx;
    }
  else
    {
      const req *r = &s->reqs[e->req];

      w->n_dec++;
      w->kv_sum += (double) r->computed + r->generated;
    }
}

/* Running request ri, a decode entry of this step with blocks for it, joins the reused batch
 * (worker.dec_ready) as its last member: its figures enter the batch's as if it had been
 * there since the batch's build (dec_steps passes ago), and the passes counted but not yet
 * written are taken off it, so that settle leaves it as it is now. */
static void
join_batch (sim *s, worker *w, req *r)
{
  double base = (double) r->computed + r->generated, j = (double) w->dec_steps;
  double room = (double) (r->blocks * s->pol->block_size) - (base + (double) s->q);

  w->dec_kv += base - j;
  if (w->cross && room < (double) s->pol->block_size)
    {
      guint ri = (guint) (r - s->reqs);

      g_array_append_val (w->cross[(w->dec_steps + (int64_t) room + 1) % s->pol->block_size],
                          ri);
    }
  else
    w->dec_room = MIN (w->dec_room, room + j);
  w->dec_left = MIN (w->dec_left, (double) r->osl - r->generated + j);
  w->dec_fits = w->dec_fits && room == 0;
  w->dec_n++;
  r->generated -= (double) w->lazy_steps;
  r->blocks -= w->lazy_blocks;
}

/* Adds the running requests' work to the step: decodes (when decode is TRUE) and continuing
 * prefill chunks (when prefill is TRUE), within the budget; preempts on a full cache. */
static void
add_running (sim *s, worker *w, gboolean decode, gboolean prefill, int64_t *budget, int64_t *nseq)
{
  const msperf_serve_policy *pol = s->pol;
  const int64_t bs = pol->block_size, q = s->q, max_seqs = w->max_seqs;
  int64_t bud = *budget, ns = *nseq;
  double kv = w->kv_sum;      /* locals for the loop: stored back at the end */
  /* The leading decode entries of the walk (the running requests from `start` on, each made
   * a decode entry in order) and their figures: the reused batch they make. */
  guint start = 0, lead = 0;
  gboolean leading = TRUE, tail = FALSE;
  double room = INFINITY, room_max = 0, left_min = INFINITY, lead_kv = 0;

  GArray *crossing = w->cross && w->dec_ready
                      ? w->cross[(w->dec_steps + 1) % pol->block_size] : NULL;

  if (decode && w->dec_ready
      && (((double) (w->dec_steps + 1) * s->tau + 1e-6 < w->dec_room
           && (crossing == NULL
               || w->used_blocks + (int64_t) crossing->len <= w->total_blocks))
          || (w->dec_fits && w->used_blocks + (int64_t) w->dec_n <= w->total_blocks)))
    {
      const guint n = w->dec_n;

      if (w->dec_fits)
        {
          /* One more block each (see worker.dec_fits). */
          w->used_blocks += (int64_t) n;
          w->lazy_blocks++;
        }
      else if (crossing)
        {
          /* One more block for each that crosses at this build (see worker.cross). */
          for (guint i = 0; i < crossing->len; i++)
            s->reqs[g_array_index (crossing, guint, i)].blocks++;
          w->used_blocks += (int64_t) crossing->len;
        }
      /* Every request of the reused batch decodes within the blocks it holds: its entries,
       * budget and count are those of the last build. */
      if (s->lazy_ok)
        /* Each pass since that build added one token to each entry. */
        kv += w->dec_kv + (double) n * (double) (w->dec_steps + 1);
      else
        for (guint i = 0; i < n; i++)
          {
            const req *r = &s->reqs[w->batch[i].req];

            kv += (double) r->computed + r->generated;
          }
      w->n_batch = n;
      w->n_dec += n;
      bud -= q * (int64_t) n;
      ns += n;
      w->dec_steps++;
      if (n == w->running->len)
        {
          w->kv_sum = kv;
          *budget = bud;
          *nseq = ns;
          return;
        }
      /* The requests after it, one by one. */
      start = n;
      tail = TRUE;
    }
  else
    {
      if (!decode && w->dec_ready && w->dec_n == w->running->len)
        return;                 /* no running request has prompt left to prefill */
      w->dec_ready = FALSE;
      settle (s, w);
    }

  for (guint i = start; i < w->running->len && bud > 0 && ns < max_seqs; i++)
    {
      guint ri = g_array_index (w->running, guint, i);
      req *r = &s->reqs[ri];
      entry e = { ri, 0, r->computed };

      if (w->n_batch != i)
        leading = FALSE;        /* an entry before it was left out */
      if (r->computed < r->prompt)
        {
          int64_t left = r->prompt - r->computed;

          leading = FALSE;
          if (!prefill)
            continue;
          e.chunk = pol->chunked_prefill ? MIN (left, bud) : left;
          if (e.chunk > bud && ns > 0)
            continue;
          if (!grow (s, w, r, (double) (r->computed + e.chunk)))
            continue;               /* waits for blocks */
          bud -= e.chunk;
          push_entry (s, w, &e);
        }
      else
        {
          double base, tokens;

          if (!decode)
            continue;
          base = (double) r->computed + r->generated;
          tokens = base + (double) q;
          /* Within the blocks it holds (the common step: no block boundary crossed) nothing
           * grows and nothing is preempted; only a crossing takes the full path. */
          if (tokens > (double) (r->blocks * bs))
            {
              /* Past the blocks it holds by at most one block (the usual crossing): one more
               * block, as blocks_for would count without its division. */
              int64_t want = tokens <= (double) ((r->blocks + 1) * bs) ? r->blocks + 1
                                                                       : blocks_for (s, tokens);

              while (!grow_to (w, r, want))
                {
                  if (!pol->preempt || w->running->len == 0)
                    break;
                  preempt_last (s, w);
                  if (r->state != R_RUNNING)
                    break;
                }
              if (r->state != R_RUNNING)
                break;
              if (r->blocks < want)
                continue;           /* no preemption: stalls this step */
            }
          if (leading)
            {
              lead++;
              room = MIN (room, (double) (r->blocks * bs) - tokens);
              room_max = MAX (room_max, (double) (r->blocks * bs) - tokens);
              left_min = MIN (left_min, (double) r->osl - r->generated);
              lead_kv += base;
            }
          bud -= q;
          {
            entry *d = &w->batch[w->n_batch++];

            /* Field by field: a copy of the whole entry stalls on the stores that built it. */
            d->req = ri;
            d->chunk = 0;
            d->ctx = r->computed;
          }
          w->n_dec++;
          kv += base;
        }
      ns++;
    }
  *budget = bud;
  *nseq = ns;
  w->kv_sum = kv;
  if (tail)
    {
      /* The reused batch takes in the leading decodes after it (unless a preemption in the
       * walk dropped it). */
      if (w->dec_ready)
        for (guint i = start; i < start + lead; i++)
          join_batch (s, w, &s->reqs[w->batch[i].req]);
      return;
    }
  if (decode && w->role != W_PREFILL && lead > 0
      && ((s->lazy_ok && pol->mixed_batch) || (lead == w->running->len && w->n_batch == lead)))
    {
      w->dec_ready = TRUE;
      w->dec_n = lead;
      w->dec_room = room;
      w->dec_steps = 0;
      w->dec_kv = lead_kv;
      w->dec_left = left_min;
      w->dec_fits = s->lazy_ok && bs == 1 && room == 0 && room_max == 0;
      if (s->lazy_ok && bs > 1)
        {
          /* Who crosses into a new block when (see worker.cross). */
          if (w->cross == NULL)
            {
              w->cross = g_new (GArray *, bs);
              for (int64_t b = 0; b < bs; b++)
                w->cross[b] = g_array_new (FALSE, FALSE, sizeof (guint));
            }
          for (int64_t b = 0; b < bs; b++)
            g_array_set_size (w->cross[b], 0);
          w->dec_room = INFINITY;
          for (guint i = 0; i < lead; i++)
            {
              guint ri = w->batch[i].req;
              const req *r = &s->reqs[ri];
              double rr = (double) (r->blocks * bs) - ((double) r->computed + r->generated
                                                       + (double) q);

              if (rr < (double) bs)
                g_array_append_val (w->cross[((int64_t) rr + 1) % bs], ri);
              else
                w->dec_room = MIN (w->dec_room, rr);
            }
        }
    }
}

/* Admits waiting requests FCFS while the budget, the sequence limit and the KV cache allow. */
static void
admit (sim *s, worker *w, int64_t *budget, int64_t *nseq)
{
  const msperf_serve_policy *pol = s->pol;
  /* A request admitted straight to decode (its KV came from a prefill worker) joins a reused
   * decode batch (worker.dec_ready) when the step mixes it with the running decodes: the next
   * build would make the same entries. Its figures enter the batch's as if it had been there
   * since that batch's build (dec_steps passes ago). */
  gboolean extend = s->lazy_ok && pol->mixed_batch && w->dec_ready
                    && w->n_batch == w->running->len && w->dec_n == w->running->len;

  while (w->waiting.length > 0 && *nseq < w->max_seqs && (gint64) w->running->len
         < w->max_seqs)
    {
      guint ri = GPOINTER_TO_UINT (g_queue_peek_head (&w->waiting)) - 1;
      req *r = &s->reqs[ri];
      cached_prompt *hit = NULL;
      int64_t hit_blocks = 0, freeable = w->evictable;
      int64_t left, need;
      entry e;
      double reserve = w->ratio * w->rem_out, own = w->ratio * remaining_out (r);

      if (w->pcache && r->computed == 0 && r->prompt_id >= 0
          && (hit = g_hash_table_lookup (w->pcache, &r->prompt_id)) != NULL)
        {
          /* Its prompt's full blocks are cached: it prefills from the first block past them
           * and at least its last token (the one that yields the first output token). */
          hit_blocks = MIN (hit->blocks, (r->prompt - 1) / pol->block_size);
          if (hit_blocks == 0)
            hit = NULL;
          else if (hit->refs == 0)
            freeable -= hit->blocks;
        }
      left = r->prompt - r->computed - hit_blocks * pol->block_size;
      e = (entry){ ri, 0, r->computed + hit_blocks * pol->block_size };

      if (left > 0)
        {
          if (*budget <= 0)
            break;
          /* SGLang's input budget (PrefillAdder.budget_state): spent once the step's tokens
           * reach max_prefill_tokens, which a prompt admitted whole may overshoot. */
          if (pol->max_prefill_tokens > 0 && w->n_pre > 0
              && w->budget - *budget >= pol->max_prefill_tokens)
            break;
          e.chunk = pol->chunked_prefill ? MIN (left, *budget) : left;
          if (e.chunk > *budget && *nseq > 0)
            break;
        }
      else if (*budget < s->q)
        break;
      need = blocks_for (s, (double) (e.ctx + e.chunk) + (left > 0 ? 0 : r->generated + (double) s->q))
             - hit_blocks + blocks_for (s, own) + blocks_for (s, reserve);
      if (w->used_blocks - freeable + need > w->total_blocks)
        break;
      g_queue_pop_head (&w->waiting);
      if (hit)
        {
          pc_acquire (w, hit);
          r->cached = hit;
          r->blocks = r->shared = hit_blocks;
          r->computed = e.ctx;
          r->hit = MAX (r->hit, e.ctx);
        }
      grow (s, w, r, (double) (r->computed + e.chunk) + (left > 0 ? 0 : r->generated + (double) s->q));
      r->state = R_RUNNING;
      g_array_append_val (w->running, ri);
      w->rem_out += remaining_out (r);
      *budget -= left > 0 ? e.chunk : s->q;
      push_entry (s, w, &e);
      if (extend && left <= 0 && hit == NULL && !r->await_first
          && (double) (r->blocks * pol->block_size) >= (double) r->computed + r->generated
                                                        + (double) s->q)
        join_batch (s, w, r);
      else
        {
          /* Mixed steps with counted passes keep the batch; it walks the newcomer. */
          if (!(s->lazy_ok && pol->mixed_batch))
            w->dec_ready = FALSE;
          extend = FALSE;
        }
      (*nseq)++;
    }
}

static void
build_step (sim *s, worker *w, gboolean hold)
{
  const msperf_serve_policy *pol = s->pol;
  int64_t budget = w->budget, nseq = 0;

  guint most = w->running->len + w->waiting.length;

  /* A step holds each running and waiting request at most once. */
  if (most > w->cap_batch)
    {
      w->cap_batch = MAX (most, 2 * w->cap_batch);
      w->batch = g_renew (entry, w->batch, w->cap_batch);
      w->chunk = g_renew (int64_t, w->chunk, w->cap_batch);
      w->ctx = g_renew (int64_t, w->ctx, w->cap_batch);
    }
  w->n_batch = 0;
  w->n_pre = 0;
  w->n_dec = 0;
  w->kv_sum = 0;
  if (w->role == W_PREFILL)
    {
      add_running (s, w, FALSE, TRUE, &budget, &nseq);
      admit (s, w, &budget, &nseq);
      return;
    }
  if (hold)
    {
      /* The engine holds its prompts back this step (adp_balance_timeout_iters). */
      add_running (s, w, TRUE, FALSE, &budget, &nseq);
      return;
    }
  if (pol->mixed_batch)
    {
      add_running (s, w, TRUE, TRUE, &budget, &nseq);
      admit (s, w, &budget, &nseq);
      return;
    }
  /* Prefill first, not mixed (SGLang): a prefill batch when one can be formed, else a decode
   * step of the running requests. */
  add_running (s, w, FALSE, TRUE, &budget, &nseq);
  admit (s, w, &budget, &nseq);
  if (w->n_batch > 0)
    return;
  budget = G_MAXINT64;
  add_running (s, w, TRUE, FALSE, &budget, &nseq);
  if (w->n_batch > 0)
    w->ratio = MAX (pol->reserve_ratio_min * w->ratio_scale,
                    w->ratio - pol->reserve_ratio_decay * w->ratio_scale);
}

/* A step of `us` on the device holding `seqs` sequences, with the host's time: the serial part
 * adds to it, the part beside the device only paces it when longer (us). */
static double
with_host (const msperf_serve_policy *pol, double us, double seqs)
{
  return MAX (us + pol->step_overhead_us + pol->seq_overhead_us * seqs,
              pol->seq_overlap_us * seqs);
}

/* Builds worker wi's next step and prices it: *dur in seconds, 0 when it has nothing to run. */
static gboolean
price_step (sim *s, guint wi, gboolean hold, double *dur, GError **error)
{
  worker *w = &s->w[wi];
  double us, data_us;

  *dur = 0;
  build_step (s, w, hold);
  if (w->n_batch == 0)
    return TRUE;
  w->step_lazy = s->lazy_ok && w->dec_ready;
  if (!msperf_serve_step_latency (w->steps, w->n_pre, w->chunk, w->ctx, w->n_dec, w->kv_sum,
                                  &us, &data_us, error))
    return FALSE;
  *dur = with_host (s->pol, us, (double) w->n_batch);
  s->data_us += data_us;
  s->total_us += us;
  s->steps++;
  *dur /= 1e6;
  return TRUE;
}

/* Starts the priced step of worker wi, lasting dur seconds. */
static void
launch_step (sim *s, guint wi, double dur)
{
  worker *w = &s->w[wi];

  w->busy = TRUE;
  s->n_busy++;
  s->w[w->group].group_busy++;
  w->step_start = s->now;
  /* In use: the blocks the requests hold; cached prompts no request holds are free to take
   * (vLLM's KV cache usage counts them so). */
  w->kv_time += dur * (w->total_blocks > 0 ? (double) (w->used_blocks - w->evictable)
                                               / (double) w->total_blocks : 0);
  w->busy_time += dur;
  w->batch_time += dur * (double) w->n_batch;
  if (w->total_blocks > 0)
    s->kv_max = MAX (s->kv_max, (double) (w->used_blocks - w->evictable)
                                / (double) w->total_blocks);
  if (s->rec && s->rec->samples)
    {
      msperf_serve_sample smp = { s->now, wi, (int32_t) w->n_batch,
                                  w->total_blocks > 0 ? (double) (w->used_blocks - w->evictable)
                                                            / (double) w->total_blocks : 0 };
      g_array_append_val (s->rec->samples, smp);
    }
  if (s->rec && s->rec->timeline)
    g_string_append_printf (s->rec->timeline,
                            ",\n{\"name\":\"step\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
                            "\"dur\":%.3f,\"args\":{\"prefill\":%u,\"decode\":%" G_GINT64_FORMAT
                            ",\"kv_blocks\":%" G_GINT64_FORMAT "}}", wi, s->now * 1e6, dur * 1e6,
                            w->n_pre, w->n_dec, w->used_blocks);
  heap_push (&s->h, s->now + dur, EV_STEP, wi);
}

/* Whether the attention-DP ranks of group g (its first worker) hold their prompts back this
 * step, as TensorRT-LLM's attention_dp_config.enable_balance does (PyExecutor
 * _balance_adp_requests, batching_wait_iters 0): prompts are scheduled when every rank has one
 * waiting and a free slot, when some rank has nothing to decode, or after timeout_iters steps
 * of holding them. */
static gboolean
adp_hold (sim *s, worker *g)
{
  gboolean all_ctx = TRUE, all_gen = TRUE, all_free = TRUE;

  if (s->pol->adp_balance_timeout_iters <= 0)
    return FALSE;
  for (guint k = 0; k < g->group_size; k++)
    {
      const worker *w = g + k;

      all_ctx = all_ctx && w->waiting.length > 0;
      all_gen = all_gen && w->running->len > 0;
      all_free = all_free && (gint64) w->running->len < w->max_seqs;
    }
  if (all_ctx && all_free)
    {
      g->adp_wait = 0;
      return FALSE;
    }
  if (++g->adp_wait >= s->pol->adp_balance_timeout_iters || !all_gen)
    {
      g->adp_wait = 0;
      return FALSE;
    }
  return TRUE;
}

/* Starts worker wi's next step if it is idle and has work; a lockstep group's ranks start
 * together once all are idle, each for the slowest one's time. */
static gboolean
start_step (sim *s, guint wi, GError **error)
{
  worker *w = &s->w[wi];
  double dur, most = 0;
  gboolean hold;

  if (w->busy)
    return TRUE;
  if (w->group_size <= 1)
    {
      if (!price_step (s, wi, FALSE, &dur, error))
        return FALSE;
      if (dur > 0)
        launch_step (s, wi, dur);
      return TRUE;
    }
  if (s->w[w->group].group_busy > 0)
    return TRUE;                /* it starts with them when their step ends */
  hold = adp_hold (s, &s->w[w->group]);
  for (guint k = w->group; k < w->group + w->group_size; k++)
    {
      if (!price_step (s, k, hold, &dur, error))
        return FALSE;
      most = MAX (most, dur);
    }
  for (guint k = w->group; k < w->group + w->group_size; k++)
    if (s->w[k].n_batch > 0)
      launch_step (s, k, most);
  return TRUE;
}

/* Starts every idle worker that has work. */
static gboolean
start_idle (sim *s, GError **error)
{
  for (guint i = 0; i < s->n_workers; i++)
    if (!s->w[i].busy && (s->w[i].waiting.length || s->w[i].running->len)
        && !start_step (s, i, error))
      return FALSE;
  return TRUE;
}

static void
finish (sim *s, worker *w, guint ri)
{
  req *r = &s->reqs[ri];

  r->finish = s->now;
  r->state = R_DONE;
  free_blocks (w, r);
  if (s->rec && s->rec->timeline)
    g_string_append_printf (s->rec->timeline,
                            ",\n{\"name\":\"request %u\",\"ph\":\"X\",\"pid\":2,\"tid\":%u,"
                            "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"isl\":%" G_GINT64_FORMAT
                            ",\"osl\":%" G_GINT64_FORMAT ",\"ttft_ms\":%.3f}}", ri, ri,
                            r->arrival * 1e6, (r->finish - r->arrival) * 1e6, r->isl, r->osl,
                            (r->first_token - r->arrival) * 1e3);
  if (s->dep->mode == MSPERF_SERVE_AGG || w->role == W_DECODE)
    issue (s, s->now);          /* closed loop: that client's next request (no-op when open) */
}

static double
transfer_s (const sim *s, const req *r)
{
  return s->pol->kv_transfer_latency_us / 1e6
         + s->kv_bytes_token * (double) r->isl / (s->pol->kv_transfer_gbps * 1e9);
}

static gboolean
apply_step (sim *s, guint wi, GError **error)
{
  worker *w = &s->w[wi];
  gboolean any_done = FALSE;
  double rem = w->rem_out;    /* w->rem_out, in a register for the loop */
  guint first = 0;

  w->busy = FALSE;
  s->n_busy--;
  s->w[w->group].group_busy--;
  if (w->step_lazy && w->dec_left - (double) (w->dec_steps + 1) > 1e-9)
    {
      /* The reused batch, and none of its requests reaches its output length: one token
       * each, counted (see worker.lazy_steps); the entries after it one by one. */
      w->lazy_steps++;
      w->lazy_t = s->now;
      rem -= (double) w->dec_n;
      first = w->dec_n;
      if (first == w->n_batch)
        {
          w->rem_out = rem;
          return TRUE;
        }
    }
  else
    settle (s, w);
  for (guint i = first; i < w->n_batch; i++)
    {
      const entry *e = &w->batch[i];
      req *r = &s->reqs[e->req];

      if (r->state != R_RUNNING)
        continue;               /* preempted after it was scheduled: the step's work is lost */
      if (e->chunk > 0)
        {
          r->computed += e->chunk;
          if (r->computed < r->prompt)
            continue;
          if (w->pcache && r->prompt_id >= 0 && r->cached == NULL
              && !g_hash_table_contains (w->pcache, &r->prompt_id))
            {
              /* The prompt's full blocks pass to the cache; the request holds them. */
              cached_prompt *c = g_new0 (cached_prompt, 1);

              c->prompt = r->prompt_id;
              c->blocks = MIN (r->blocks, r->isl / s->pol->block_size);
              c->refs = 1;
              g_hash_table_insert (w->pcache, &c->prompt, c);
              r->cached = c;
              r->shared = c->blocks;
            }
          if (!r->has_first)
            {
              r->has_first = TRUE;
              r->generated = 1;
              r->first_token = r->last_token = s->now;
              rem -= 1;
            }
          if (w->role == W_PREFILL)
            {
              free_blocks (w, r);
              rem -= remaining_out (r);
              r->state = R_TRANSFER;
              any_done = TRUE;
              heap_push (&s->h, s->now + transfer_s (s, r), EV_KV_READY, e->req);
              continue;
            }
        }
      else
        {
          double add = MIN (s->tau, remaining_out (r));

          if (r->await_first)
            {
              /* The prefill's token and this step's reach the client together. */
              r->await_first = FALSE;
              r->first_token = s->now;
            }
          else if (s->gaps)
            g_array_append_vals (s->gaps, &(double){ (s->now - r->last_token) * 1e3 }, 1);
          r->generated += add;
          rem -= add;
          r->last_token = s->now;
        }
      if (r->generated >= (double) r->osl - 1e-9)
        {
          rem -= remaining_out (r);
          finish (s, w, e->req);
          any_done = TRUE;
        }
    }
  w->rem_out = rem;
  if (any_done)
    {
      guint k = 0;

      for (guint i = 0; i < w->running->len; i++)
        {
          guint ri = g_array_index (w->running, guint, i);

          if (s->reqs[ri].state == R_RUNNING)
            g_array_index (w->running, guint, k++) = ri;
        }
      g_array_set_size (w->running, k);
      w->dec_ready = FALSE;
    }
  if (w->running->len == 0)
    w->rem_out = 0;             /* no drift from the fractional MTP tokens */
  return TRUE;
  (void) error;
}

/* ---------------------------------------------------------------- results */

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The order cmp_double gives, for the large arrays a long run's inter-token gaps make (one per
 * output token: 16 M at 4 096 clients of 1 024 tokens, where qsort took a quarter of the
 * run): an LSD radix sort on the doubles' bit patterns, mapped so that unsigned order is
 * numeric order (sign bit set for positives, all bits flipped for negatives). The same values
 * come out in the same ascending order, so the mean summed over them and every percentile
 * are unchanged. NaNs sort apart from cmp_double's; no figure here is NaN. */
#define RADIX_MIN 65536

static void
sort_doubles (double *v, gsize n)
{
  g_autofree guint64 *a = NULL, *b = NULL;
  g_autofree gsize *count = NULL;

  if (n < RADIX_MIN)
    {
      qsort (v, n, sizeof *v, cmp_double);
      return;
    }
  a = g_new (guint64, n), b = g_new (guint64, n), count = g_new (gsize, 65536);
  for (gsize i = 0; i < n; i++)
    {
      guint64 u;

      memcpy (&u, &v[i], sizeof u);
      a[i] = u >> 63 ? ~u : u | (G_GUINT64_CONSTANT (1) << 63);
    }
  for (guint shift = 0; shift < 64; shift += 16)
    {
      gsize sum = 0;
      guint64 *t;

      memset (count, 0, 65536 * sizeof *count);
      for (gsize i = 0; i < n; i++)
        count[(a[i] >> shift) & 0xffff]++;
      for (gsize d = 0; d < 65536; d++)
        {
          gsize c = count[d];

          count[d] = sum, sum += c;
        }
      for (gsize i = 0; i < n; i++)
        b[count[(a[i] >> shift) & 0xffff]++] = a[i];
      t = a, a = b, b = t;
    }
  for (gsize i = 0; i < n; i++)
    {
      guint64 u = a[i] >> 63 ? a[i] & ~(G_GUINT64_CONSTANT (1) << 63) : ~a[i];

      memcpy (&v[i], &u, sizeof u);
    }
}

/* Nearest rank: the smallest value with at least q % of the values at or below it. */
static double
rank_of (const double *sorted, gsize n, double q)
{
  gsize k = (gsize) ceil (q / 100.0 * (double) n);

  return sorted[MAX (k, (gsize) 1) - 1];
}

double
msperf_serve_percentile (double *v, gsize n, double q)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof *v, cmp_double);
  return rank_of (v, n, q);
}

void
msperf_serve_dist_of (double *v, gsize n, msperf_serve_dist *d)
{
  double sum = 0;

  if (n == 0)
    {
      d->mean = d->p50 = d->p90 = d->p99 = NAN;
      return;
    }
  sort_doubles (v, n);
  for (gsize i = 0; i < n; i++)
    sum += v[i];
  d->mean = sum / (double) n;
  d->p50 = rank_of (v, n, 50);
  d->p90 = rank_of (v, n, 90);
  d->p99 = rank_of (v, n, 99);
}

/* Completions per arrival over the span in which the measured requests arrive (see
 * msperf_serve_result.keep_up): the completions of any request, warm-up ones included, since
 * in a steady state those leaving balance those arriving whatever their order. */
static double
keep_up (const sim *s)
{
  double a0 = INFINITY, a1 = -INFINITY;
  int64_t arrived = 0, left = 0;

  for (guint i = 0; i < s->n_reqs; i++)
    if ((int64_t) i >= s->warmup && (int64_t) i < (int64_t) s->n_reqs - s->cooldown)
      {
        a0 = MIN (a0, s->reqs[i].arrival);
        a1 = MAX (a1, s->reqs[i].arrival);
      }
  if (!(a1 > a0))
    return NAN;
  for (guint i = 0; i < s->n_reqs; i++)
    {
      const req *r = &s->reqs[i];

      arrived += r->arrival >= a0 && r->arrival <= a1;
      left += r->state == R_DONE && r->finish >= a0 && r->finish <= a1;
    }
  return (double) left / (double) arrived;
}

double
msperf_serve_in_service (const msperf_serve_result *r, double rate)
{
  double l;

  g_return_val_if_fail (r != NULL, NAN);
  l = rate * MAX (r->e2e_ms.mean - r->ttft_ms.mean, 0.0) / 1e3;
  return r->seq_slots > 0 ? MIN (l, (double) r->seq_slots) : l;
}

msperf_serve_steady_run
msperf_serve_steady_sizes (double in_service, int64_t min_measured)
{
  msperf_serve_steady_run r = { (int64_t) ceil (2 * in_service),
                                MAX ((int64_t) ceil (4 * in_service), min_measured),
                                (int64_t) ceil (in_service) };
  return r;
}

/* Request ri's KV cache has reached the decode pool: its prompt is computed there, and its
 * first token is out now or with its first decode step (first_token_from_decode). */
static void
kv_arrived (sim *s, guint ri)
{
  req *r = &s->reqs[ri];

  r->await_first = s->pol->first_token_from_decode;
  if (!r->await_first)
    r->first_token = s->now;
  r->last_token = s->now;
  r->computed = r->prompt;
}

static void
collect (sim *s, msperf_serve_result *out)
{
  g_autoptr (GArray) ttft = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) tpot = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) e2e = g_array_new (FALSE, FALSE, sizeof (double));
  double t0 = INFINITY, t1 = -INFINITY, in_tok = 0, out_tok = 0, user = 0, kv = 0, busy = 0,
         batch = 0, hit_tok = 0;
  int64_t n_user = 0;
  gboolean pooled = FALSE;

  for (guint i = 0; i < s->n_reqs; i++)
    {
      const req *r = &s->reqs[i];
      double v;

      if (r->state != R_DONE || (int64_t) i < s->warmup
          || (int64_t) i >= (int64_t) s->n_reqs - s->cooldown)
        continue;
      v = (r->first_token - r->arrival) * 1e3;
      g_array_append_val (ttft, v);
      v = (r->finish - r->arrival) * 1e3;
      g_array_append_val (e2e, v);
      if (r->osl > 1)
        {
          /* vLLM benchmark_serving.py / genai-perf: (e2e - TTFT) / (output tokens - 1). */
          v = (r->finish - r->first_token) * 1e3 / (double) (r->osl - 1);
          g_array_append_val (tpot, v);
          if (v > 0)
            {
              user += 1e3 / v;
              n_user++;
            }
        }
      t0 = MIN (t0, r->arrival);
      t1 = MAX (t1, r->finish);
      in_tok += (double) r->isl;
      out_tok += (double) r->osl;
      hit_tok += (double) r->hit;
      pooled = pooled || r->prompt_id >= 0;
    }
  out->measured = ttft->len;
  out->prefix_hit_share = pooled && in_tok > 0 ? hit_tok / in_tok : NAN;
  if (s->rec)
    {
      if (s->rec->ttfts)
        g_array_append_vals (s->rec->ttfts, ttft->data, ttft->len);
      if (s->rec->tpots)
        g_array_append_vals (s->rec->tpots, tpot->data, tpot->len);
      if (s->rec->e2es)
        g_array_append_vals (s->rec->e2es, e2e->data, e2e->len);
    }
  msperf_serve_dist_of ((double *) (void *) ttft->data, ttft->len, &out->ttft_ms);
  msperf_serve_dist_of ((double *) (void *) tpot->data, tpot->len, &out->tpot_ms);
  msperf_serve_dist_of ((double *) (void *) e2e->data, e2e->len, &out->e2e_ms);
  if (s->gaps)
    msperf_serve_dist_of ((double *) (void *) s->gaps->data, s->gaps->len, &out->itl_ms);
  else
    out->itl_ms = out->tpot_ms;
  out->duration_s = t1 > t0 ? t1 - t0 : NAN;
  out->req_per_s = (double) out->measured / out->duration_s;
  out->in_tok_per_s = in_tok / out->duration_s;
  out->out_tok_per_s = out_tok / out->duration_s;
  out->tok_per_s_gpu = out->out_tok_per_s / (double) out->devices;
  out->tok_per_s_user = n_user ? user / (double) n_user : NAN;
  for (guint i = 0; i < s->n_workers; i++)
    {
      const worker *w = &s->w[i];

      if (w->role == W_PREFILL)
        continue;
      out->seq_slots += w->max_seqs;
      kv += w->kv_time;
      busy += w->busy_time;
      batch += w->batch_time;
    }
  out->kv_use_mean = busy > 0 ? kv / busy : NAN;
  out->kv_use_max = s->kv_max;
  out->mean_batch = busy > 0 ? batch / busy : NAN;
  out->preemptions = s->preemptions;
  out->steps = s->steps;
  out->data_share = s->total_us > 0 ? s->data_us / s->total_us : NAN;
  out->keep_up = s->open_loop ? keep_up (s) : NAN;
}

/* ---------------------------------------------------------------- static batching */

static gboolean
run_static (msperf_serve_answers *answers, const msperf_model *model,
            const msperf_serve_deployment *dep, const msperf_serve_workload *w,
            msperf_serve_result *out, GError **error)
{
  msperf_e2e_request er;
  msperf_e2e_point pt;
  msperf_model_eval *ev;
  gboolean ok;

  /* e2e's request with its defaults (decode sampled every 32 tokens, the plain memory check). */
  memset (&er, 0, sizeof er);
  er.isl = w->isl;
  er.osl = w->osl;
  er.nextn = dep->nextn;
  er.accept = dep->accept;
  er.stride = 32;
  er.device_bytes = dep->device_bytes;

  if (dep->mode != MSPERF_SERVE_AGG || w->arrival != MSPERF_SERVE_CLOSED)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "--backend static is aggregated serving under a closed loop (--concurrency)");
      return FALSE;
    }
  if (dep->kv_capacity_tokens > 0 && w->isl + w->osl - 1 > dep->kv_capacity_tokens)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "a request needs %" G_GINT64_FORMAT " tokens of KV cache (isl %"
                   G_GINT64_FORMAT ", osl %" G_GINT64_FORMAT ") but a rank holds %"
                   G_GINT64_FORMAT ": refused before simulating", w->isl + w->osl - 1, w->isl,
                   w->osl, dep->kv_capacity_tokens);
      return FALSE;
    }
  er.batch = MAX (1, cdiv (w->concurrency, dep->layout.dp * dep->replicas));
  ev = msperf_model_eval_new (msperf_serve_answers_engine (answers));
  ok = msperf_e2e_point_compute (ev, model, &dep->layout, &er, &pt, error);
  msperf_model_eval_free (ev);
  if (!ok)
    return FALSE;
  if (!pt.fits)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "weights %.2f GiB + KV cache %.2f GiB do not fit in %.1f GiB per device",
                   pt.weight_gib, pt.kv_gib, pt.device_gib);
      return FALSE;
    }
  out->requests = out->measured = er.batch * dep->layout.dp * dep->replicas;
  out->ttft_ms = (msperf_serve_dist){ pt.ttft_ms, pt.ttft_ms, pt.ttft_ms, pt.ttft_ms };
  out->tpot_ms = (msperf_serve_dist){ pt.tpot_ms, pt.tpot_ms, pt.tpot_ms, pt.tpot_ms };
  out->itl_ms = out->tpot_ms;
  out->e2e_ms = (msperf_serve_dist){ pt.latency_ms, pt.latency_ms, pt.latency_ms, pt.latency_ms };
  out->duration_s = pt.latency_ms / 1e3;
  out->req_per_s = (double) out->requests / out->duration_s;
  out->in_tok_per_s = out->req_per_s * (double) w->isl;
  out->out_tok_per_s = out->req_per_s * (double) w->osl;
  out->tok_per_s_gpu = pt.tps_device;
  out->tok_per_s_user = pt.tps_user;
  out->kv_use_mean = out->kv_use_max = NAN;
  out->mean_batch = (double) er.batch;
  out->steps = msperf_e2e_n_passes (&er);
  out->data_share = pt.data_share;
  return TRUE;
}

/* Each micro-batch is a worker of its own whose step passes every stage (pp × one stage), so
 * that pp of them keep the stages busy at once (vLLM's max_concurrent_batches = pp, SGLang's
 * and TensorRT-LLM's pipeline loops); without them one batch passes all stages at a time, as
 * e2e. */
int64_t
msperf_serve_microbatches (const msperf_serve_policy *pol, const msperf_model_layout *l)
{
  return pol->pp_microbatches && l->pp > 1 ? l->pp : 1;
}

/* ---------------------------------------------------------------- the run */

typedef struct {
  worker_role role;
  const msperf_model_layout *layout;
  int64_t count;
  int64_t max_seqs;           /* 0: the preset's max_num_seqs */
} pool_spec;

gboolean
msperf_serve_attention_dp (const msperf_model *model, const msperf_model_layout *layout)
{
  double total = 0, active = 0, mtp, emb;

  g_return_val_if_fail (model != NULL && layout != NULL, FALSE);
  /* Routed experts (fewer parameters active than held): the DP ranks step together. */
  return layout->dp > 1 && msperf_model_params (model, &total, &active, &mtp, &emb, NULL)
         && active < total;
}

int64_t
msperf_serve_rank_budget (const msperf_model *model, const msperf_model_layout *layout,
                          const msperf_serve_policy *pol)
{
  g_return_val_if_fail (pol != NULL, 0);
  if (pol->dp_attention_budget_split && msperf_serve_attention_dp (model, layout))
    return MAX (1, pol->max_num_batched_tokens / layout->dp);
  return pol->max_num_batched_tokens;
}

static gboolean
make_workers (sim *s, msperf_serve_answers *answers, const msperf_model *model,
              GPtrArray *owned, GError **error)
{
  const msperf_serve_deployment *dep = s->dep;
  pool_spec pools[2];
  guint n_pools = 0, wi = 0;

  if (dep->mode == MSPERF_SERVE_AGG)
    pools[n_pools++] = (pool_spec){ W_AGG, &dep->layout, dep->replicas, 0 };
  else
    {
      pools[n_pools++] = (pool_spec){ W_PREFILL, &dep->prefill, dep->prefill_workers,
                                      dep->prefill_max_seqs };
      pools[n_pools++] = (pool_spec){ W_DECODE, &dep->decode, dep->decode_workers,
                                      dep->decode_max_seqs };
    }
  s->n_workers = 0;
  for (guint p = 0; p < n_pools; p++)
    s->n_workers += (guint) (pools[p].count * pools[p].layout->dp
                             * msperf_serve_microbatches (s->pol, pools[p].layout));
  s->w = g_new0 (worker, s->n_workers);
  for (guint p = 0; p < n_pools; p++)
    {
      const msperf_model_layout *l = pools[p].layout;
      const int64_t mb = msperf_serve_microbatches (s->pol, l);
      msperf_serve_steps *steps;
      int64_t cap, budget, max_seqs;
      guint group_size;
      double wb, kvb;

      if (!msperf_model_check_layout (model, l, error)
          || !msperf_model_memory (model, l, &wb, &kvb, error))
        return FALSE;
      if (dep->kv_capacity_tokens > 0)
        cap = dep->kv_capacity_tokens;
      else
        {
          GError *e = NULL;

          cap = msperf_serve_kv_capacity (model, l, dep->device_bytes, s->pol, &e);
          if (e)
            {
              g_propagate_error (error, e);
              return FALSE;
            }
        }
      if (cap == 0)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "the weights (%.2f GiB per device) and the runtime's reserves leave no KV "
                       "cache in %.1f GiB × %.2f", wb / GIB, dep->device_bytes / GIB,
                       s->pol->gpu_memory_utilization);
          return FALSE;
        }
      if (pools[p].role != W_PREFILL)
        s->kv_bytes_token = kvb;
      if (pools[p].role == W_DECODE || pools[p].role == W_AGG)
        s->rec_capacity = cap;
      steps = msperf_serve_steps_new (answers, model, l,
                                      pools[p].role == W_PREFILL ? 0 : dep->nextn);
      g_ptr_array_add (owned, steps);
      if (pools[p].role == W_PREFILL)
        s->n_prefill = (guint) (pools[p].count * l->dp * mb);
      group_size = msperf_serve_attention_dp (model, l) ? (guint) l->dp : 1;
      budget = msperf_serve_rank_budget (model, l, s->pol);
      max_seqs = pools[p].max_seqs > 0 ? pools[p].max_seqs : s->pol->max_num_seqs;
      /* Workers in the order replica, micro-batch, DP rank: a lockstep group is the DP ranks
       * of one micro-batch. The micro-batches share the engine's sequence limit and its
       * ranks' KV cache evenly. */
      for (int64_t k = 0; k < pools[p].count * l->dp * mb; k++, wi++)
        {
          worker *w = &s->w[wi];

          w->role = pools[p].role;
          w->max_seqs = MAX (1, cdiv (max_seqs, mb));
          w->share = mb;
          w->steps = steps;
          w->group_size = group_size;
          w->group = wi - (guint) (k % (int64_t) w->group_size);
          g_queue_init (&w->waiting);
          w->running = g_array_new (FALSE, FALSE, sizeof (guint));
          w->total_blocks = cap < 0 ? G_MAXINT64 / 4 : cap / s->pol->block_size / mb;
          w->ratio_scale = w->group_size > 1 ? s->pol->dp_attention_reserve_scale : 1.0;
          w->budget = budget;
          w->ratio = s->pol->reserve_ratio_init * w->ratio_scale;
          g_queue_init (&w->lru);
          if (s->pol->prefix_caching && pools[p].role != W_DECODE)
            w->pcache = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
        }
    }
  return TRUE;
}

/* A request must fit the KV cache of every worker that holds it: its prompt on a prefill
 * worker, its prompt and all but its last output token on a decode or aggregated worker (the
 * last step's KV). One that cannot would wait forever; it is refused before simulating. */
static gboolean
requests_fit (const sim *s, GError **error)
{
  int64_t least[2] = { G_MAXINT64, G_MAXINT64 };   /* blocks: prefill, decode/aggregated */
  int64_t share[2] = { 1, 1 };

  for (guint wi = 0; wi < s->n_workers; wi++)
    {
      int k = s->w[wi].role == W_PREFILL ? 0 : 1;

      if (s->w[wi].total_blocks < least[k])
        {
          least[k] = s->w[wi].total_blocks;
          share[k] = s->w[wi].share;
        }
    }
  for (guint i = 0; i < s->n_reqs; i++)
    {
      const msperf_serve_req_spec *sp = &g_array_index (s->specs, msperf_serve_req_spec, i);

      /* A runtime that refuses a prompt it cannot run in one step (TensorRT-LLM's LLM API
       * without chunked prefill) answers such a request with an error, not a latency. */
      if (s->pol->prompt_within_budget && !s->pol->chunked_prefill
          && sp->isl > s->pol->max_num_batched_tokens)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "request %u has a prompt of %" G_GINT64_FORMAT " tokens, past the step "
                       "budget of %" G_GINT64_FORMAT " without chunked prefill, which the "
                       "runtime refuses (--max-num-batched-tokens or --chunked-prefill true)",
                       i, sp->isl, s->pol->max_num_batched_tokens);
          return FALSE;
        }
      for (int k = 0; k < 2; k++)
        {
          double tokens = k == 0 ? (double) sp->isl : (double) sp->isl + (double) sp->osl - 1;

          if (least[k] == G_MAXINT64 || blocks_for (s, tokens) <= least[k])
            continue;
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "request %u needs %.0f tokens of KV cache (isl %" G_GINT64_FORMAT
                       ", osl %" G_GINT64_FORMAT ") but a %s rank holds %" G_GINT64_FORMAT
                       " tokens (%" G_GINT64_FORMAT " blocks of %" G_GINT64_FORMAT
                       ")%s: refused before simulating", i, tokens, sp->isl, sp->osl,
                       k == 0 ? "prefill" : "decode", least[k] * s->pol->block_size, least[k],
                       s->pol->block_size, share[k] > 1 ? " for each of its pipeline's "
                       "micro-batches (--pp-microbatches false: one)" : "");
          return FALSE;
        }
    }
  return TRUE;
}

static double
tokens_per_step (int64_t nextn, double accept)
{
  double tau = 1, p = 1;

  for (int64_t k = 0; k < nextn; k++)
    tau += (p *= accept);
  return tau;
}

/* One request's latency when the closed loop runs steadily: its prefill alone, then osl
 * decode steps among `concurrency` sequences at its mean context (on the first worker).
 * Staggered clients start spread over it, so the run begins near its steady state instead of
 * with every client's prompt in one burst that a deterministic simulation never forgets. */
static gboolean
estimate_request (sim *s, const msperf_serve_workload *wl, double *out, GError **error)
{
  worker *w = &s->w[s->dep->mode == MSPERF_SERVE_AGG ? 0 : s->n_prefill];
  worker *p = &s->w[0];
  int64_t isl = wl->isl, ctx = 0, per_rank = MAX (1, wl->concurrency / (int64_t) s->n_workers);
  double pre, dec, data, kv = (double) per_rank * ((double) wl->isl + (double) wl->osl / 2);

  if (!msperf_serve_step_latency (p->steps, 1, &isl, &ctx, 0, 0, &pre, &data, error)
      || !msperf_serve_step_latency (w->steps, 0, NULL, NULL, per_rank, kv, &dec, &data, error))
    return FALSE;
  dec = with_host (s->pol, dec, (double) per_rank);
  *out = (pre + s->pol->step_overhead_us + dec * (double) wl->osl / s->tau) / 1e6;
  return TRUE;
}

/* The warm-up run before the measured requests: its n_warm requests (the first specs), dealt
 * in turn to the workers that prefill, leave their prompts' full blocks in those workers'
 * caches, as far as the cache holds them (least recently used evicted first). */
static void
warm_caches (sim *s, guint n_warm)
{
  guint lo = 0, hi = s->dep->mode == MSPERF_SERVE_AGG ? s->n_workers : s->n_prefill;

  for (guint i = 0; i < n_warm && hi > lo; i++)
    {
      const msperf_serve_req_spec *sp = &g_array_index (s->specs, msperf_serve_req_spec, i);
      worker *w = &s->w[lo + i % (hi - lo)];
      cached_prompt *c;
      int64_t blocks = sp->isl / s->pol->block_size;

      if (w->pcache == NULL || blocks == 0)
        continue;
      if ((c = g_hash_table_lookup (w->pcache, &sp->prompt)) != NULL)
        {
          /* Used again: the most recently used. */
          g_queue_unlink (&w->lru, c->lru);
          g_queue_push_tail_link (&w->lru, c->lru);
          continue;
        }
      pc_evict (w, blocks);
      if (w->used_blocks + blocks > w->total_blocks)
        continue;
      c = g_new0 (cached_prompt, 1);
      c->prompt = sp->prompt;
      c->blocks = blocks;
      g_hash_table_insert (w->pcache, &c->prompt, c);
      g_queue_push_tail (&w->lru, c);
      c->lru = w->lru.tail;
      w->used_blocks += blocks;
      w->evictable += blocks;
    }
}

gboolean
msperf_serve_run (msperf_serve_answers *answers, const msperf_model *model,
                  const msperf_serve_deployment *dep, const msperf_serve_policy *pol,
                  const msperf_serve_workload *wl, msperf_serve_record *rec,
                  msperf_serve_result *out, GError **error)
{
  sim s;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func ((GDestroyNotify) msperf_serve_steps_free);
  gboolean ok = FALSE;
  event ev;
  int64_t max_events = wl && wl->max_events > 0 ? wl->max_events : MSPERF_SERVE_MAX_EVENTS;
  int64_t n_wanted, n_events = 0;
  gboolean held = FALSE;       /* arrivals at this instant wait for the last of them */
  guint n_warm;

  g_return_val_if_fail (answers && model && dep && pol && wl && out, FALSE);
  memset (out, 0, sizeof *out);
  out->keep_up = NAN;
  out->prefix_hit_share = NAN;
  out->devices = dep->mode == MSPERF_SERVE_AGG
                   ? dep->replicas * dep->layout.tp * dep->layout.dp * dep->layout.pp
                   : dep->prefill_workers * dep->prefill.tp * dep->prefill.dp * dep->prefill.pp
                       + dep->decode_workers * dep->decode.tp * dep->decode.dp * dep->decode.pp;
  if (pol->name && strcmp (pol->name, "static") == 0)
    return run_static (answers, model, dep, wl, out, error);
  /* Every request is at least one event: a run with more requests than the bound is refused
   * before its requests are made. */
  n_wanted = wl->arrival == MSPERF_SERVE_TRACE ? (int64_t) wl->trace->len : wl->num_requests;
  if (wl->arrival != MSPERF_SERVE_TRACE && wl->prompt_pool > 0)
    {
      /* The warm-up's requests and the pool's prompts are made too. */
      if (wl->prompt_pool > max_events || wl->prompt_warmup > max_events
          || wl->prompt_pool > G_MAXUINT32 / 2 || wl->prompt_warmup > G_MAXUINT32 / 2)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "a prompt pool of %" G_GINT64_FORMAT " and %" G_GINT64_FORMAT " warm-up "
                       "requests exceed the bound of %" G_GINT64_FORMAT " events of one "
                       "simulation (--max-events N raises it)", wl->prompt_pool,
                       wl->prompt_warmup, max_events);
          return FALSE;
        }
      n_wanted += wl->prompt_warmup;
    }
  if (n_wanted > max_events || n_wanted > G_MAXUINT32 / 2)
    {
      g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                   "%" G_GINT64_FORMAT " requests exceed the bound of %" G_GINT64_FORMAT
                   " events of one simulation (--max-events N raises it)", n_wanted, max_events);
      return FALSE;
    }
  memset (&s, 0, sizeof s);
  s.pol = pol;
  s.dep = dep;
  s.rec = rec;
  s.q = 1 + dep->nextn;
  s.tau = tokens_per_step (dep->nextn, dep->accept);
  s.lazy_ok = s.tau == 1.0 && !(rec && rec->want_itl);
  s.h.items = g_array_new (FALSE, FALSE, sizeof (event));
  s.specs = msperf_serve_make_requests (wl);
  n_warm = wl->arrival != MSPERF_SERVE_TRACE && wl->prompt_pool > 0 ? (guint) wl->prompt_warmup : 0;
  s.n_reqs = s.specs->len - n_warm;
  s.reqs = g_new0 (req, s.n_reqs);
  s.warmup = wl->warmup;
  s.cooldown = wl->cooldown;
  s.open_loop = wl->arrival != MSPERF_SERVE_CLOSED;
  s.gaps = rec && rec->want_itl ? g_array_new (FALSE, FALSE, sizeof (double)) : NULL;
  if (!make_workers (&s, answers, model, owned, error))
    goto out;
  warm_caches (&s, n_warm);
  g_array_remove_range (s.specs, 0, n_warm);
  if (!requests_fit (&s, error))
    goto out;
  if (wl->arrival == MSPERF_SERVE_CLOSED)
    {
      double spread = 0;

      if (wl->staggered && !estimate_request (&s, wl, &spread, error))
        goto out;
      for (int64_t c = 0; c < wl->concurrency && s.next_issue < s.n_reqs; c++)
        issue (&s, spread * (double) c / (double) wl->concurrency);
    }
  else
    {
      while (s.next_issue < s.n_reqs)
        issue (&s, g_array_index (s.specs, msperf_serve_req_spec, s.next_issue).arrival_s);
    }
  while (heap_pop (&s.h, &ev))
    {
      guint wi;

      if (++n_events > max_events)
        {
          g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                       "the simulation passed the bound of %" G_GINT64_FORMAT " events "
                       "(--max-events N raises it)", max_events);
          goto out;
        }

      s.now = ev.t;
      switch (ev.kind)
        {
        case EV_ARRIVE:
          s.reqs[ev.arg].arrival = s.now;
          wi = dep->mode == MSPERF_SERVE_AGG ? route (&s, 0, s.n_workers)
                                             : route (&s, 0, s.n_prefill);
          enqueue (&s, ev.arg, wi);
          /* Requests that arrive at one instant (a closed loop's clients starting together)
           * are all in the queue when an idle engine wakes: the runtimes drain their input
           * queue before they schedule (vLLM's EngineCore, SGLang's recv_requests), so the
           * first arrival does not start a step alone. */
          if (heap_next_arrives_at (&s.h, s.now))
            {
              held = TRUE;
              break;
            }
          if (!held)
            {
              if (!start_step (&s, wi, error))
                goto out;
              break;
            }
          held = FALSE;
          if (!start_idle (&s, error))
            goto out;
          break;
        case EV_KV_READY:
          wi = route (&s, s.n_prefill, s.n_workers);
          kv_arrived (&s, ev.arg);
          enqueue (&s, ev.arg, wi);
          if (!start_step (&s, wi, error))
            goto out;
          break;
        case EV_STEP:
          if (!apply_step (&s, ev.arg, error))
            goto out;
          /* A lockstep group starts again only when its last member's step ends. */
          if (s.w[s.w[ev.arg].group].group_busy > 0)
            break;
          /* Finished requests may have issued new arrivals at this instant; they are events
           * of their own. Every idle worker with work starts its next step (when every other
           * worker is busy, the one that just finished its step is the only idle one). */
          if (s.n_busy + 1 == s.n_workers)
            {
              worker *w = &s.w[ev.arg];

              if ((w->waiting.length || w->running->len) && !start_step (&s, ev.arg, error))
                goto out;
              break;
            }
          if (!start_idle (&s, error))
            goto out;
          break;
        }
    }
  for (guint i = 0; i < s.n_reqs; i++)
    if (s.reqs[i].state != R_DONE)
      {
        g_set_error (error, MSPERF_ERROR_DOMAIN, MSPERF_ERROR_INVALID,
                     "request %u (isl %" G_GINT64_FORMAT ") can never be scheduled: the KV cache "
                     "(%" G_GINT64_FORMAT " tokens per rank) or the step limits are too small",
                     i, s.reqs[i].isl, s.rec_capacity);
        goto out;
      }
  out->requests = s.n_reqs;
  out->kv_capacity_tokens = s.rec_capacity;
  for (guint i = 0; i < owned->len; i++)
    out->step_points += msperf_serve_steps_points (g_ptr_array_index (owned, i));
  collect (&s, out);
  ok = TRUE;
out:
  for (guint i = 0; i < s.n_workers && s.w; i++)
    {
      g_queue_clear (&s.w[i].waiting);
      g_queue_clear (&s.w[i].lru);
      if (s.w[i].pcache)
        g_hash_table_destroy (s.w[i].pcache);
      if (s.w[i].running)
        g_array_free (s.w[i].running, TRUE);
      if (s.w[i].cross)
        {
          for (int64_t b = 0; b < pol->block_size; b++)
            g_array_free (s.w[i].cross[b], TRUE);
          g_free (s.w[i].cross);
        }
      g_free (s.w[i].batch);
      g_free (s.w[i].chunk);
      g_free (s.w[i].ctx);
    }
  g_free (s.w);
  g_free (s.reqs);
  g_array_free (s.specs, TRUE);
  g_array_free (s.h.items, TRUE);
  if (s.gaps)
    g_array_free (s.gaps, TRUE);
  return ok;
}
